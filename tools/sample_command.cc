#include "tools/sample_command.h"

#include <chrono>
#include <iomanip>
#include <iostream>

#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "tools/command_support.h"
#include "tools/devices_command.h"
#include "tools/nnremote_flags.h"
#include "tools/sample_model.h"
#include "tools/target.h"

namespace nnremote::tools {

int runSample() {
  const hal::Priority priority = absl::GetFlag(FLAGS_priority);
  const hal::OptionalDuration deadline = deadlineFromFlags();
  auto target = openTarget();
  if (!target.ok()) return fail("run-sample", target.error());
  printDevices(*target);

  const SampleModel sample = buildSampleModel();
  std::vector<std::shared_ptr<proxy::ProxyDevice>> devices = target->devices;
  if (const std::string name = absl::GetFlag(FLAGS_device); !name.empty()) {
    auto device = target->device(name);
    if (!device.ok()) return fail("run-sample", device.error());
    devices = {*device};
  }
  std::cout << "\nSample model: CONV_2D -> DEPTHWISE_CONV_2D -> AVERAGE_POOL_2D -> RESHAPE -> "
               "FULLY_CONNECTED -> SOFTMAX, input [1, 8, 8, 3] float32\n";
  for (const auto& device : devices) {
    std::cout << "\n" << device->getName() << ":\n";
    auto prepared = device->prepareModel(sample.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, priority,
                                         std::nullopt, {}, {}, {});
    if (!prepared.ok()) return fail("run-sample", prepared.error());
    auto io = hal::makeRequest({hal::toBytes(sample.input)}, {4 * sizeof(float)});
    if (!io.ok()) return fail("run-sample", io.error());
    const auto start = std::chrono::steady_clock::now();
    hal::OptionalTimePoint executionDeadline;
    if (deadline) executionDeadline = start + *deadline;
    auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::YES, executionDeadline, std::nullopt);
    const auto roundTrip = std::chrono::steady_clock::now() - start;
    if (!outcome.ok()) return fail("run-sample", outcome.error());
    const auto output = hal::fromMemory<float>(io->outputs[0], 4);
    std::cout << "  output 0:       [";
    for (size_t i = 0; i < output.size(); ++i) {
      std::cout << (i ? ", " : "") << std::fixed << std::setprecision(6) << output[i];
    }
    std::cout << "]\n  output shape 0: ";
    // A device may answer without shapes (the HAL allows it where they were fully specified).
    if (outcome->outputShapes.empty()) {
      std::cout << "none reported (the model gives "
                << hal::toString(sample.model.main.operands[sample.model.main.outputIndexes[0]].dimensions) << ")\n";
    } else {
      std::cout << hal::toString(outcome->outputShapes[0].dimensions)
                << (outcome->outputShapes[0].isSufficient ? "" : " (buffer too small)") << "\n";
    }
    std::cout << "  timeOnDevice:   " << formatDuration(outcome->timing.timeOnDevice)
              << " (device time: simulated on nnremote NPUs, measured on backends such as Arm NN)\n"
              << "  timeInDriver:   " << formatDuration(outcome->timing.timeInDriver) << "\n"
              << "  round trip:     " << formatDuration(std::chrono::duration_cast<hal::Duration>(roundTrip))
              << " (client wall clock, through the proxy driver)\n";
  }
  return 0;
}

}  // namespace nnremote::tools
