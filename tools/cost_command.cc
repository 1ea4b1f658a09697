#include "tools/cost_command.h"

#include <fstream>
#include <iostream>

#include "hal/file_contents.h"
#include "tools/command_support.h"
#include "tools/nnremote_flags.h"
#include "tools/scalesim_compat.h"

namespace nnremote::tools {

int runCost() {
  const std::string configPath = absl::GetFlag(FLAGS_scalesim_config), topologyPath = absl::GetFlag(FLAGS_topology);
  if (configPath.empty() || topologyPath.empty()) {
    return fail("cost", hal::invalidArgument() << "--scalesim-config=FILE and --topology=FILE are required");
  }
  auto configText = hal::readFileContents(configPath);
  if (!configText.ok()) return fail("cost", configText.error());
  auto npu = parseScaleSimConfig(*configText, configPath);
  if (!npu.ok()) return fail("cost", npu.error());
  if (absl::GetFlag(FLAGS_count_cycles)) npu->set_scalesim_off_by_one(false);
  auto topologyText = hal::readFileContents(topologyPath);
  if (!topologyText.ok()) return fail("cost", topologyText.error());
  auto layers = parseScaleSimTopology(*topologyText, absl::GetFlag(FLAGS_gemm), topologyPath);
  if (!layers.ok()) return fail("cost", layers.error());
  const std::string report = computeReport(*layers, *npu);
  const std::string outputPath = absl::GetFlag(FLAGS_output);
  if (outputPath.empty()) {
    std::cout << report;
    return 0;
  }
  std::ofstream output(outputPath);
  output << report;
  if (!output) return fail("cost", hal::invalidArgument() << "cannot write " << outputPath);
  return 0;
}

}  // namespace nnremote::tools
