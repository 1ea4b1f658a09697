// nnremote replay: a recording (npu_emulator --record=DIR) run against --target and compared.
#include <fstream>
#include <iostream>

#include "tools/commands.h"
#include "tools/connection_flags.h"
#include "tools/flags.h"
#include "tools/replay.h"
#include "tools/replay_report.h"
#include "tools/target.h"

namespace nnremote::tools {

int runReplay(const std::vector<std::string>& args) {
  auto flags = Flags::parse(args, withConnectionFlags({"recording", "device", "exact", "html"}));
  if (!flags.ok()) {
    std::cerr << "nnremote replay: " << flags.error().message << "\n";
    return 2;
  }
  if (!flags->has("recording")) {
    std::cerr << "nnremote replay: --recording=DIR is required\n";
    return 2;
  }
  auto target = openTarget(*flags);
  if (!target.ok()) {
    std::cerr << "nnremote replay: " << target.error().message << "\n";
    return 1;
  }
  ReplayOptions options;
  options.deviceName = flags->get("device");
  options.exact = flags->has("exact");
  const std::vector<hal::SharedDevice> devices(target->devices.begin(), target->devices.end());
  std::cout << "Replaying " << flags->get("recording") << " on " << target->description
            << (options.deviceName.empty() ? "" : ", device " + options.deviceName)
            << (options.exact ? ", outputs compared byte for byte" : ", outputs compared with the CTS tolerances")
            << std::endl;
  auto summary = replayRecording(flags->get("recording"), devices, options);
  if (!summary.ok()) {
    std::cerr << "nnremote replay: " << summary.error().message << "\n";
    return 1;
  }
  for (const auto& warning : summary->warnings) std::cerr << "warning: " << warning << "\n";
  for (const auto& difference : summary->differences) std::cout << "DIFFERS " << difference << "\n";
  if (flags->has("html")) {
    std::ofstream html(flags->get("html"));
    html << renderReplayHtml(*summary, flags->get("recording"), target->description);
    if (!html) {
      std::cerr << "nnremote replay: cannot write " << flags->get("html") << "\n";
      return 1;
    }
  }
  std::cout << summaryLine(*summary) << std::endl;
  return summary->differed == 0 ? 0 : 1;
}

}  // namespace nnremote::tools
