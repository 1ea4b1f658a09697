#include "tests/fuzz/fuzz_target.h"

#include "accelerator_sim/npu_config.h"
#include "accelerator_sim/sim_device.h"
#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "hal/validation.h"

namespace nnremote::fuzz {

const hal::SharedDevice& smallDevice() {
  static const hal::SharedDevice* device = [] {
    sim::NpuConfig config = sim::edgeNpuConfig();
    config.mutable_dram()->set_capacity_mib(64);
    return new hal::SharedDevice(sim::SimDevice::create(config));
  }();
  return *device;
}

namespace {

// Zero-filled inputs and room for the outputs the model declares, when their sizes are known
// and small: the request a client would most likely send.
std::optional<hal::RequestWithMemories> requestFor(const hal::Model& model) {
  std::vector<std::vector<uint8_t>> inputs;
  for (uint32_t index : model.main.inputIndexes) {
    const hal::Operand& operand = model.main.operands[index];
    const auto size = hal::sizeOfData(operand.type, operand.dimensions);
    if (!size || *size > (1u << 20)) return std::nullopt;
    inputs.emplace_back(*size, 0);
  }
  std::vector<size_t> outputs;
  for (uint32_t index : model.main.outputIndexes) {
    const hal::Operand& operand = model.main.operands[index];
    const auto size = hal::sizeOfData(operand.type, operand.dimensions);
    outputs.push_back(size && *size > 0 && *size <= (1u << 20) ? *size : 4096);
  }
  auto request = hal::makeRequest(inputs, outputs);
  if (!request.ok()) return std::nullopt;
  return std::move(request).value();
}

}  // namespace

void prepareAndExecute(const hal::Model& model, const hal::Request* request) {
  auto prepared = smallDevice()->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                              hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  if (!prepared.ok()) return;
  std::optional<hal::RequestWithMemories> made;
  if (request == nullptr) {
    made = requestFor(model);
    if (!made) return;
    request = &made->request;
  }
  if (!hal::validateRequestForModel(*request, model, /*allowPointers=*/false).ok()) return;
  (void)(*prepared)->execute(*request, hal::MeasureTiming::YES, std::nullopt, std::chrono::milliseconds(10));
}

}  // namespace nnremote::fuzz
