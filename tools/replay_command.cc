// nnremote replay: a recording (npu_emulator --record=DIR) run against --target and compared.
#include "tools/replay_command.h"

#include <iostream>

#include "tools/command_support.h"
#include "tools/connection_flags.h"
#include "tools/nnremote_flags.h"
#include "tools/output_file.h"
#include "tools/recording_reader.h"
#include "tools/replay.h"
#include "tools/replay_report.h"
#include "tools/target.h"

namespace nnremote::tools {

int runReplay() {
  const std::string recording = absl::GetFlag(FLAGS_recording);
  if (recording.empty()) {
    std::cerr << "nnremote replay: --recording=DIR is required\n";
    return 2;
  }
  auto html = OutputFile::open("html", absl::GetFlag(FLAGS_html));
  if (!html.ok()) {
    std::cerr << "nnremote replay: " << html.error().message << "\n";
    return 1;
  }
  // A recording that cannot be read fails before a server is started or reached.
  if (auto reader = RecordingReader::open(recording); !reader.ok()) {
    std::cerr << "nnremote replay: " << reader.error().message << "\n";
    return 1;
  }
  auto target = openTarget();
  if (!target.ok()) {
    std::cerr << "nnremote replay: " << target.error().message << "\n";
    return 1;
  }
  ReplayOptions options;
  options.deviceName = absl::GetFlag(FLAGS_device);
  options.exact = absl::GetFlag(FLAGS_exact);
  const std::vector<hal::SharedDevice> devices(target->devices.begin(), target->devices.end());
  std::cout << "Replaying " << recording << " on " << target->description
            << (options.deviceName.empty() ? "" : ", device " + options.deviceName)
            << (options.exact ? ", outputs compared byte for byte" : ", outputs compared with the CTS tolerances")
            << std::endl;
  auto summary = replayRecording(recording, devices, options);
  if (!summary.ok()) {
    std::cerr << "nnremote replay: " << summary.error().message << "\n";
    return 1;
  }
  for (const auto& warning : summary->warnings) std::cerr << "warning: " << warning << "\n";
  for (const auto& difference : summary->differences) std::cout << "DIFFERS " << difference << "\n";
  if (html->wanted()) {
    if (auto written = html->write(renderReplayHtml(*summary, recording, target->description)); !written.ok()) {
      std::cerr << "nnremote replay: " << written.error().message << "\n";
      return 1;
    }
  }
  std::cout << summaryLine(*summary) << std::endl;
  return summary->differed == 0 ? 0 : 1;
}

}  // namespace nnremote::tools
