#include "emulator/simulated_npus.h"

#include "accelerator_sim/sim_device.h"
#include "scheduler/scheduled_device.h"

namespace nnremote::emulator {

hal::SharedDevice createSimulatedNpu(const sim::NpuConfig& npu, const SimulatedNpuOptions& options) {
  scheduler::SchedulerOptions scheduling;
  scheduling.timeline.engines = sim::engineCount(npu);
  scheduling.timeline.queueDepth = options.scheduling.queueDepth;
  scheduling.timeline.agingStep = options.scheduling.priorityAgingStep;
  scheduling.paceRealtime = options.paceRealtime;
  scheduling.time = options.time;
  scheduling.preparationTime = [npu](const hal::Model& model) { return sim::preparationTime(model, npu); };
  return scheduler::ScheduledDevice::create(sim::SimDevice::create(npu, options.cacheSecret), std::move(scheduling));
}

std::vector<hal::SharedDevice> createSimulatedNpus(const std::vector<sim::NpuConfig>& npus,
                                                   const SimulatedNpuOptions& options) {
  std::vector<hal::SharedDevice> devices;
  for (const auto& npu : npus) devices.push_back(createSimulatedNpu(npu, options));
  return devices;
}

}  // namespace nnremote::emulator
