// Reads an npu_emulator recording (--record=DIR): the folder's *.nnrec files in name order (so in
// the order the runs started), or one such file, one length-delimited wire::RecordEntry at a time.
// A recording is never held whole in memory.
#ifndef NNREMOTE_TOOLS_RECORDING_READER_H_
#define NNREMOTE_TOOLS_RECORDING_READER_H_

#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "hal/result.h"
#include "wire/nnremote.pb.h"

namespace nnremote::tools {

class RecordingReader {
 public:
  // PATH is a recording's folder or one of its files. Fails if PATH does not exist, or is a folder
  // holding no .nnrec file.
  static hal::Result<std::unique_ptr<RecordingReader>> open(const std::string& path);

  // The next entry: true with `entry` set, or false at the end of the recording. A file cut
  // short (a server killed mid-write) ends early, and a file with no readable entry is skipped,
  // each with a warning in warnings().
  bool next(wire::RecordEntry* entry);
  // Entries read so far, from every file.
  size_t entriesRead() const { return entriesRead_; }
  // The file the last entry came from, and the number of entries read from it so far.
  const std::string& file() const { return files_[current_]; }
  const std::vector<std::string>& warnings() const { return warnings_; }

 private:
  explicit RecordingReader(std::vector<std::string> files) : files_(std::move(files)) {}
  bool openCurrent();

  std::vector<std::string> files_;
  size_t current_ = 0;
  size_t entriesInFile_ = 0;
  size_t entriesRead_ = 0;
  std::ifstream stream_;
  std::unique_ptr<google::protobuf::io::IstreamInputStream> input_;
  std::vector<std::string> warnings_;
};

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_RECORDING_READER_H_
