// The NDK's model functions: NULL checks here, the rules in ModelBuilder.
#include <android/NeuralNetworks.h>
#include <android/NeuralNetworksExtensions.h>

#include <algorithm>

#include "runtime/handles.h"
#include "runtime/model_builder.h"
#include "runtime/result_codes.h"

using nnremote::runtime::DeviceRegistry;
using nnremote::runtime::fromHandle;
using nnremote::runtime::ModelBuilder;
using nnremote::runtime::refuse;

namespace {

ModelBuilder* builderOf(ANeuralNetworksModel* model) { return reinterpret_cast<ModelBuilder*>(model); }
const ModelBuilder* builderOf(const ANeuralNetworksModel* model) {
  return reinterpret_cast<const ModelBuilder*>(model);
}

}  // namespace

#define NNREMOTE_REQUIRE(condition, what) \
  if (!(condition)) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, what " is NULL")

extern "C" {

int ANeuralNetworksModel_create(ANeuralNetworksModel** model) {
  NNREMOTE_REQUIRE(model != nullptr, "model");
  auto* builder = new (std::nothrow) ModelBuilder();
  *model = reinterpret_cast<ANeuralNetworksModel*>(builder);
  return builder != nullptr ? ANEURALNETWORKS_NO_ERROR
                            : refuse(__func__, ANEURALNETWORKS_OUT_OF_MEMORY, "no memory for the model");
}

void ANeuralNetworksModel_free(ANeuralNetworksModel* model) { delete builderOf(model); }

int ANeuralNetworksModel_finish(ANeuralNetworksModel* model) {
  NNREMOTE_REQUIRE(model != nullptr, "model");
  return builderOf(model)->finish();
}

int ANeuralNetworksModel_addOperand(ANeuralNetworksModel* model, const ANeuralNetworksOperandType* type) {
  NNREMOTE_REQUIRE(model != nullptr && type != nullptr, "model or type");
  return builderOf(model)->addOperand(type);
}

int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel* model, int32_t index, const void* buffer,
                                         size_t length) {
  NNREMOTE_REQUIRE(model != nullptr, "model");
  if (buffer == nullptr && length != 0) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "buffer is NULL");
  return builderOf(model)->setOperandValue(index, buffer, length);
}

int ANeuralNetworksModel_setOperandValueFromMemory(ANeuralNetworksModel* model, int32_t index,
                                                   const ANeuralNetworksMemory* memory, size_t offset, size_t length) {
  NNREMOTE_REQUIRE(model != nullptr && memory != nullptr, "model or memory");
  if (fromHandle(memory)->use() != nullptr) {
    return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "a memory from a descriptor cannot hold a model's constants");
  }
  return builderOf(model)->setOperandValueFromMemory(index, fromHandle(memory)->memory(), offset, length);
}

int ANeuralNetworksModel_setOperandValueFromModel(ANeuralNetworksModel* model, int32_t index,
                                                  const ANeuralNetworksModel* value) {
  NNREMOTE_REQUIRE(model != nullptr && value != nullptr, "model or value");
  return builderOf(model)->setOperandValueFromModel(index, builderOf(value));
}

int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
    ANeuralNetworksModel* model, int32_t index, const ANeuralNetworksSymmPerChannelQuantParams* channelQuant) {
  NNREMOTE_REQUIRE(model != nullptr && channelQuant != nullptr, "model or channelQuant");
  return builderOf(model)->setOperandSymmPerChannelQuantParams(index, channelQuant);
}

int ANeuralNetworksModel_setOperandExtensionData(ANeuralNetworksModel* model, int32_t index, const void* data,
                                                 size_t length) {
  NNREMOTE_REQUIRE(model != nullptr, "model");
  if (data == nullptr && length != 0) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "data is NULL");
  return builderOf(model)->setOperandExtensionData(index, data, length);
}

int ANeuralNetworksModel_addOperation(ANeuralNetworksModel* model, ANeuralNetworksOperationType type,
                                      uint32_t inputCount, const uint32_t* inputs, uint32_t outputCount,
                                      const uint32_t* outputs) {
  // NULL lists are refused even with a count of 0, as Android's runtime refuses them.
  NNREMOTE_REQUIRE(model != nullptr && inputs != nullptr && outputs != nullptr, "model, inputs or outputs");
  return builderOf(model)->addOperation(type, inputCount, inputs, outputCount, outputs);
}

int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel* model, uint32_t inputCount,
                                                  const uint32_t* inputs, uint32_t outputCount,
                                                  const uint32_t* outputs) {
  // NULL lists are refused even with a count of 0, as Android's runtime refuses them.
  NNREMOTE_REQUIRE(model != nullptr && inputs != nullptr && outputs != nullptr, "model, inputs or outputs");
  return builderOf(model)->identifyInputsAndOutputs(inputCount, inputs, outputCount, outputs);
}

int ANeuralNetworksModel_relaxComputationFloat32toFloat16(ANeuralNetworksModel* model, bool allow) {
  NNREMOTE_REQUIRE(model != nullptr, "model");
  return builderOf(model)->relaxComputationFloat32toFloat16(allow);
}

int ANeuralNetworksModel_getExtensionOperandType(ANeuralNetworksModel* model, const char* extensionName,
                                                 uint16_t operandCodeWithinExtension, int32_t* type) {
  NNREMOTE_REQUIRE(model != nullptr && extensionName != nullptr && type != nullptr, "model, extensionName or type");
  return builderOf(model)->getExtensionOperandType(extensionName, operandCodeWithinExtension, type);
}

int ANeuralNetworksModel_getExtensionOperationType(ANeuralNetworksModel* model, const char* extensionName,
                                                   uint16_t operationCodeWithinExtension,
                                                   ANeuralNetworksOperationType* type) {
  NNREMOTE_REQUIRE(model != nullptr && extensionName != nullptr && type != nullptr, "model, extensionName or type");
  return builderOf(model)->getExtensionOperationType(extensionName, operationCodeWithinExtension, type);
}

int ANeuralNetworksModel_getSupportedOperationsForDevices(const ANeuralNetworksModel* model,
                                                          const ANeuralNetworksDevice* const* devices,
                                                          uint32_t numDevices, bool* supportedOps) {
  NNREMOTE_REQUIRE(model != nullptr && devices != nullptr && supportedOps != nullptr,
                   "model, devices or supportedOps");
  if (numDevices == 0) return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "numDevices is 0");
  const ModelBuilder& builder = *builderOf(model);
  if (!builder.isFinished()) return refuse(__func__, ANEURALNETWORKS_BAD_STATE, "the model is not finished");
  auto halModel = builder.model();
  if (!halModel.ok()) return refuse(__func__, halModel.error());
  const auto& order = builder.operationOrder();
  for (size_t i = 0; i < order.size(); ++i) supportedOps[i] = false;
  for (uint32_t d = 0; d < numDevices; ++d) {
    const auto* device = fromHandle(devices[d]);
    if (devices[d] == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "a device is NULL");
    if (!DeviceRegistry::instance().owns(device)) {
      return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "devices[" + std::to_string(d) + "] is not a device");
    }
    // The NDK: "Must not contain duplicates" (as createForDevices).
    if (std::find(devices, devices + d, devices[d]) != devices + d) {
      return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "devices[" + std::to_string(d) + "] is given twice");
    }
    auto supported = device->device->getSupportedOperations(*halModel);
    if (!supported.ok()) return refuse(__func__, supported.error());
    // The device answers in execution order; the program asks in the order it added them.
    for (size_t i = 0; i < supported->size() && i < order.size(); ++i) {
      if ((*supported)[i]) supportedOps[order[i]] = true;
    }
  }
  return ANEURALNETWORKS_NO_ERROR;
}

}  // extern "C"
