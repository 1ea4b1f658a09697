// nnremote replay: runs a recording (npu_emulator --record) against devices and compares what
// they answer with what was recorded: statuses, outputs (the CTS tolerances of each output's
// type, or byte for byte), output shapes, and device time.
#ifndef NNREMOTE_TOOLS_REPLAY_H_
#define NNREMOTE_TOOLS_REPLAY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hal/i_device.h"
#include "hal/result.h"

namespace nnremote::tools {

struct ReplayOptions {
  // Replay everything on this device; empty: on the device of the recorded name.
  std::string deviceName;
  // Compare outputs byte for byte instead of with the CTS tolerances.
  bool exact = false;
};

// One recorded model, as replayed.
struct ModelReplay {
  std::string label;   // "file #id: OPERATION, ..."
  std::string recordedDevice;
  std::string replayDevice;
  uint64_t executions = 0, matched = 0, differed = 0;
  std::string refused;  // why the replay device refused to prepare it, if it did
  // Device time summed over executions that reported it on both sides.
  uint64_t timedExecutions = 0;
  double recordedDeviceUs = 0, replayedDeviceUs = 0;
};

struct ReplaySummary {
  uint64_t replayed = 0, matched = 0, differed = 0;
  // Of the differed: executions of models the replay device refused to prepare.
  uint64_t refused = 0;
  // Executions that could not be recorded (device buffers) and so were not replayed.
  uint64_t skipped = 0;
  std::vector<std::string> differences;  // the first ones, with the reason
  std::vector<ModelReplay> models;
  std::vector<std::string> warnings;  // e.g. a file cut short
};

// RECORDING is a recording's folder or one of its files.
hal::Result<ReplaySummary> replayRecording(const std::string& recording, const std::vector<hal::SharedDevice>& devices,
                                           const ReplayOptions& options);

// "N replayed, N matched, N differed" and, when they occurred, the refused and skipped counts.
std::string summaryLine(const ReplaySummary& summary);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_REPLAY_H_
