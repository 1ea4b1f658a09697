#include "tools/cost_command.h"

#include <iostream>

#include "hal/file_contents.h"
#include "tools/command_support.h"
#include "tools/nnremote_flags.h"
#include "tools/output_file.h"
#include "tools/scalesim_compat.h"

namespace nnremote::tools {

int runCost() {
  const std::string configPath = absl::GetFlag(FLAGS_scalesim_config), topologyPath = absl::GetFlag(FLAGS_topology);
  if (configPath.empty() || topologyPath.empty()) {
    return fail("cost", hal::invalidArgument() << "--scalesim-config=FILE and --topology=FILE are required");
  }
  auto output = OutputFile::open("output", absl::GetFlag(FLAGS_output));
  if (!output.ok()) return fail("cost", output.error());
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
  if (!output->wanted()) {
    std::cout << report;
    return 0;
  }
  if (auto written = output->write(report); !written.ok()) return fail("cost", written.error());
  return 0;
}

}  // namespace nnremote::tools
