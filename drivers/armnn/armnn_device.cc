#include "drivers/armnn/armnn_device.h"

#include <armnn/Version.hpp>

#include <algorithm>
#include <cctype>

#include "drivers/armnn/armnn_prepared_model.h"
#include "drivers/armnn/model_lowering.h"

namespace nnremote::armnn {
namespace {

// "armnn-" and the backends in order, lower case: armnn-cpuacc-cpuref.
std::string deviceName(const std::vector<::armnn::BackendId>& backends) {
  std::string name = "armnn";
  for (const auto& backend : backends) {
    name += "-" + backend.Get();
  }
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

hal::Capabilities capabilities() {
  hal::Capabilities capabilities;
  // Arm NN's CpuRef is the reference itself; faster backends report the same until measured.
  for (auto type : {hal::OperandType::FLOAT32, hal::OperandType::INT32, hal::OperandType::FLOAT16,
                    hal::OperandType::BOOL, hal::OperandType::TENSOR_FLOAT32, hal::OperandType::TENSOR_FLOAT16,
                    hal::OperandType::TENSOR_INT32, hal::OperandType::TENSOR_BOOL8,
                    hal::OperandType::TENSOR_QUANT8_ASYMM, hal::OperandType::TENSOR_QUANT8_ASYMM_SIGNED,
                    hal::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL}) {
    capabilities.operandPerformance.push_back({type, {1.0f, 1.0f}});
  }
  return capabilities;
}

}  // namespace

ArmnnDevice::ArmnnDevice(std::shared_ptr<::armnn::IRuntime> runtime, std::vector<::armnn::BackendId> backends)
    : runtime_(std::move(runtime)),
      backends_(std::move(backends)),
      name_(deviceName(backends_)),
      version_(std::string("Arm NN ") + ARMNN_VERSION),
      capabilities_(capabilities()) {}

hal::DeviceType ArmnnDevice::getType() const {
  const std::string first = backends_.front().Get();
  if (first == "CpuRef" || first == "CpuAcc") return hal::DeviceType::CPU;
  if (first == "GpuAcc") return hal::DeviceType::GPU;
  return hal::DeviceType::ACCELERATOR;
}

hal::Result<std::vector<bool>> ArmnnDevice::getSupportedOperations(const hal::Model& model) const {
  std::vector<bool> supported(model.main.operations.size(), false);
  if (!model.referenced.empty() || !model.extensionNameToPrefix.empty()) return supported;
  for (size_t i = 0; i < supported.size(); ++i) {
    auto lowered = lowerOperation(model, i);
    if (!lowered.ok()) continue;
    std::vector<std::string> messages;
    try {
      auto optimized = ::armnn::Optimize(*lowered->network, backends_, runtime_->GetDeviceSpec(),
                                       ::armnn::OptimizerOptions(), ::armnn::Optional<std::vector<std::string>&>(messages));
      supported[i] = optimized != nullptr;
    } catch (const ::armnn::Exception&) {
      // Arm NN's own validation (shape inference, say) refusing the layer: not supported.
      supported[i] = false;
    }
  }
  return supported;
}

hal::Result<hal::SharedPreparedModel> ArmnnDevice::prepareModel(const hal::Model& model, hal::ExecutionPreference,
                                                                hal::Priority, const hal::OptionalTimePoint&,
                                                                const std::vector<hal::CacheFile>&,
                                                                const std::vector<hal::CacheFile>&,
                                                                const hal::CacheToken&) const {
  NN_ASSIGN_OR_RETURN(auto lowered, lowerModel(model));
  std::vector<std::string> messages;
  auto optimized = ::armnn::Optimize(*lowered.network, backends_, runtime_->GetDeviceSpec(), ::armnn::OptimizerOptions(),
                                   ::armnn::Optional<std::vector<std::string>&>(messages));
  if (optimized == nullptr) {
    std::string reasons;
    for (const auto& message : messages) reasons += (reasons.empty() ? "" : "; ") + message;
    return hal::invalidArgument() << "Arm NN cannot run this model on " << name_ << ": " << reasons;
  }
  ::armnn::NetworkId network = 0;
  std::string error;
  if (runtime_->LoadNetwork(network, std::move(optimized), error, ::armnn::INetworkProperties()) !=
      ::armnn::Status::Success) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "Arm NN could not load the network: " << error;
  }
  std::vector<size_t> requestInputOfBinding;
  for (uint32_t operand : lowered.inputOperands) {
    const auto& inputs = model.main.inputIndexes;
    requestInputOfBinding.push_back(std::find(inputs.begin(), inputs.end(), operand) - inputs.begin());
  }
  return hal::SharedPreparedModel(
      std::make_shared<ArmnnPreparedModel>(runtime_, network, model, std::move(requestInputOfBinding)));
}

hal::Result<hal::SharedPreparedModel> ArmnnDevice::prepareModelFromCache(const hal::OptionalTimePoint&,
                                                                         const std::vector<hal::CacheFile>&,
                                                                         const std::vector<hal::CacheFile>&,
                                                                         const hal::CacheToken&) const {
  return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << name_ << " keeps no compilation caches";
}

hal::Result<hal::SharedBuffer> ArmnnDevice::allocate(const hal::BufferDesc&, const std::vector<hal::SharedPreparedModel>&,
                                                     const std::vector<hal::BufferRole>&,
                                                     const std::vector<hal::BufferRole>&) const {
  return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << name_ << " has no device memory domains";
}

}  // namespace nnremote::armnn
