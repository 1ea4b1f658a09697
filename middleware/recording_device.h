// npu_emulator --record=DIR: a device decorator that writes what its device was asked and what it
// answered (models, requests with their input bytes, outputs, statuses, timing) to
// DIR/<time>-<pid>.nnrec as length-delimited wire::RecordEntry messages (wire/nnremote.proto),
// for `nnremote replay` against another server or backend. Every executor reaches the recording:
// bursts, reusable and fenced executions all run through its execute().
#ifndef NNREMOTE_MIDDLEWARE_RECORDING_DEVICE_H_
#define NNREMOTE_MIDDLEWARE_RECORDING_DEVICE_H_

#include <atomic>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hal/i_device.h"
#include "hal/result.h"
#include "wire/nnremote.pb.h"

namespace nnremote::middleware {

// The file one server run writes. Thread-safe; each entry is flushed as it is written, so a
// crashed server leaves every entry before the crash readable.
class Recorder {
 public:
  // Creates DIR if needed and a new file in it.
  static hal::Result<std::shared_ptr<Recorder>> open(const std::string& directory);

  const std::string& path() const { return path_; }
  uint64_t nextModelId() { return ++lastModelId_; }
  void write(const wire::RecordEntry& entry);

 private:
  Recorder(std::string path, std::ofstream file) : path_(std::move(path)), file_(std::move(file)) {}

  const std::string path_;
  std::atomic<uint64_t> lastModelId_{0};
  std::mutex mutex_;
  std::ofstream file_;
  bool failed_ = false;  // a write error is reported once, and recording stops
};

std::vector<hal::SharedDevice> recordDevices(std::vector<hal::SharedDevice> devices, std::shared_ptr<Recorder> recorder);

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_RECORDING_DEVICE_H_
