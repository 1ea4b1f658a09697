#include "tools/recording_reader.h"

#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>
#include <filesystem>

namespace nnremote::tools {

hal::Result<std::unique_ptr<RecordingReader>> RecordingReader::open(const std::string& directory) {
  std::error_code error;
  std::vector<std::string> files;
  for (const auto& item : std::filesystem::directory_iterator(directory, error)) {
    if (item.path().extension() == ".nnrec") files.push_back(item.path().string());
  }
  if (error) return hal::invalidArgument() << "--recording=" << directory << ": " << error.message();
  if (files.empty()) return hal::invalidArgument() << "--recording=" << directory << " holds no .nnrec files";
  std::sort(files.begin(), files.end());
  std::unique_ptr<RecordingReader> reader(new RecordingReader(std::move(files)));
  if (!reader->openCurrent()) return hal::invalidArgument() << "cannot read " << reader->file();
  return reader;
}

bool RecordingReader::openCurrent() {
  input_.reset();
  stream_ = std::ifstream(files_[current_], std::ios::binary);
  entriesInFile_ = 0;
  if (!stream_) return false;
  input_ = std::make_unique<google::protobuf::io::IstreamInputStream>(&stream_);
  return true;
}

bool RecordingReader::next(wire::RecordEntry* entry) {
  while (true) {
    bool cleanEnd = false;
    entry->Clear();  // parsing merges into what is there
    if (input_ != nullptr && google::protobuf::util::ParseDelimitedFromZeroCopyStream(entry, input_.get(), &cleanEnd)) {
      ++entriesInFile_;
      return true;
    }
    if (input_ == nullptr) {
      warnings_.push_back(files_[current_] + ": cannot be read");
    } else if (!cleanEnd) {
      warnings_.push_back(files_[current_] + ": cut short after " + std::to_string(entriesInFile_) +
                          " entries (the server stopped while writing); the rest of it is skipped");
    }
    if (current_ + 1 >= files_.size()) return false;
    ++current_;
    openCurrent();
  }
}

}  // namespace nnremote::tools
