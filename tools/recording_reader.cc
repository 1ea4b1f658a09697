#include "tools/recording_reader.h"

#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace nnremote::tools {

hal::Result<std::unique_ptr<RecordingReader>> RecordingReader::open(const std::string& path) {
  std::error_code error;
  std::vector<std::string> files;
  if (std::filesystem::is_directory(path, error)) {
    for (const auto& item : std::filesystem::directory_iterator(path, error)) {
      if (item.path().extension() == ".nnrec") files.push_back(item.path().string());
    }
    if (!error && files.empty()) return hal::invalidArgument() << "--recording=" << path << " holds no .nnrec files";
  } else if (!error) {
    files.push_back(path);
  }
  if (error) return hal::invalidArgument() << "--recording=" << path << ": " << error.message();
  std::sort(files.begin(), files.end());
  std::unique_ptr<RecordingReader> reader(new RecordingReader(std::move(files)));
  if (!reader->openCurrent()) {
    return hal::invalidArgument() << "--recording=" << path << ": cannot read " << reader->file() << ": "
                                  << std::strerror(errno);
  }
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
      ++entriesRead_;
      return true;
    }
    if (input_ == nullptr) {
      warnings_.push_back(files_[current_] + ": cannot be read");
    } else if (!cleanEnd && entriesInFile_ == 0) {
      warnings_.push_back(files_[current_] +
                          ": holds no readable entry (not an nnremote recording, or cut short in its first "
                          "entry); skipped");
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
