// Runs the V1_0 conformance models on the in-process simulator. Models built only from the
// operations the simulator implements must pass; nothing may fail.
#include <gtest/gtest.h>

#include <iostream>

#include "accelerator_sim/sim_device.h"
#include "tests/conformance/cts_loader.h"
#include "tests/conformance/cts_runner.h"

namespace nnremote::cts {
namespace {

TEST(SimConformanceTest, V1_0PassesEverythingSupported) {
  const std::string root = defaultConformanceDirectory();
  if (root.empty()) GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR";
  auto device = sim::SimDevice::create(sim::edgeNpuConfig());
  std::ostringstream log;
  auto totals = runDirectory(*device, root + "/V1_0", log);
  ASSERT_TRUE(totals.ok()) << totals.error().message;
  std::cout << "V1_0 in process: " << totals->passed << " passed, " << totals->failed
            << " failed, " << totals->unsupported << " unsupported\n";
  EXPECT_EQ(totals->failed, 0u) << log.str();
  EXPECT_GT(totals->passed, 100u);
}

}  // namespace
}  // namespace nnremote::cts
