// A file a command writes when its work is done (a report, a trace, JUnit XML), opened before the
// work starts: a path that cannot be written then fails at once, saying why, rather than after a
// run of many minutes whose results are lost.
#ifndef NNREMOTE_TOOLS_OUTPUT_FILE_H_
#define NNREMOTE_TOOLS_OUTPUT_FILE_H_

#include <string>
#include <utility>

#include "hal/result.h"

namespace nnremote::tools {

class OutputFile {
 public:
  // Opens `path`, given by `--FLAG`, for writing; an empty path is an output not asked for, which
  // writes nothing. The file is not truncated yet: a run that fails before `write` leaves an
  // existing file as it was, and removes one this call created.
  // INVALID_ARGUMENT "--FLAG: cannot write PATH: REASON".
  static hal::Result<OutputFile> open(const std::string& flag, const std::string& path);

  OutputFile(OutputFile&& other) noexcept;
  OutputFile& operator=(OutputFile&&) = delete;
  OutputFile(const OutputFile&) = delete;
  ~OutputFile();

  bool wanted() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  // Replaces the file's contents with `text` (once). A full disk or a failed close is an error
  // naming the flag and the path.
  hal::Status write(const std::string& text);

 private:
  OutputFile(std::string flag, std::string path, int fd, bool created)
      : flag_(std::move(flag)), path_(std::move(path)), fd_(fd), created_(created) {}
  hal::Error failure(int error) const;

  std::string flag_, path_;
  int fd_ = -1;
  bool created_ = false;
};

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_OUTPUT_FILE_H_
