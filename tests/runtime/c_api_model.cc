#include "tests/runtime/c_api_model.h"

#include <android/NeuralNetworksExtensions.h>

#include <functional>

#include "hal/operand_types.h"

namespace nnremote::testing {
namespace {

// The program's type code for `type`: built-in codes are the NDK's; an extension type is asked
// for by name, as a program must.
int typeCode(const hal::Model& model, ANeuralNetworksModel* out, int32_t type, bool isOperation, int32_t* code) {
  const uint32_t raw = static_cast<uint32_t>(type);
  const uint16_t prefix = static_cast<uint16_t>(raw >> 16);
  if (prefix == 0) {
    *code = type;
    return ANEURALNETWORKS_NO_ERROR;
  }
  for (const auto& extension : model.extensionNameToPrefix) {
    if (extension.prefix != prefix) continue;
    const auto within = static_cast<uint16_t>(raw & 0xFFFF);
    return isOperation ? ANeuralNetworksModel_getExtensionOperationType(out, extension.name.c_str(), within, code)
                       : ANeuralNetworksModel_getExtensionOperandType(out, extension.name.c_str(), within, code);
  }
  return ANEURALNETWORKS_BAD_DATA;
}

// An index list for the NDK, which refuses NULL even for an empty list (an empty vector's data()
// may be NULL).
const uint32_t* listOf(const std::vector<uint32_t>& indexes) {
  static const uint32_t kNone = 0;
  return indexes.empty() ? &kNone : indexes.data();
}

// Whether a constant's bytes lie within the `size` bytes that hold them. An invalid model's (a
// fuzzer's) may not; a program cannot pass bytes it does not have, so such a model is not built.
bool within(const hal::DataLocation& location, size_t size) {
  return location.offset <= size && location.length <= size - location.offset;
}

}  // namespace

CApiModel::~CApiModel() {
  for (ANeuralNetworksModel* model : models_) ANeuralNetworksModel_free(model);
}

int CApiModel::build(const hal::Model& model, std::string* failure) {
  const size_t count = 1 + model.referenced.size();
  for (size_t i = 0; i < count; ++i) {
    ANeuralNetworksModel* created = nullptr;
    if (int code = ANeuralNetworksModel_create(&created); code != ANEURALNETWORKS_NO_ERROR) {
      *failure = "ANeuralNetworksModel_create";
      return code;
    }
    models_.push_back(created);
  }
  // A model is finished before the models that refer to it.
  std::vector<int> state(count, 0);  // 0 unbuilt, 1 building, 2 built
  std::function<int(size_t)> buildOne = [&](size_t i) -> int {
    if (state[i] != 0) return ANEURALNETWORKS_NO_ERROR;  // validateModel has ruled out cycles
    state[i] = 1;
    const hal::Model::Subgraph& subgraph = i == 0 ? model.main : model.referenced[i - 1];
    for (const hal::Operand& operand : subgraph.operands) {
      if (operand.lifetime != hal::Operand::LifeTime::SUBGRAPH || 1 + operand.location.offset >= count) continue;
      if (int code = buildOne(1 + operand.location.offset); code != ANEURALNETWORKS_NO_ERROR) return code;
    }
    state[i] = 2;
    return buildSubgraph(model, subgraph, models_[i], failure);
  };
  return buildOne(0);
}

int CApiModel::buildSubgraph(const hal::Model& model, const hal::Model::Subgraph& subgraph, ANeuralNetworksModel* out,
                             std::string* failure) {
  auto fail = [&](int code, const std::string& call) {
    if (code != ANEURALNETWORKS_NO_ERROR) *failure = call;
    return code;
  };
  if (model.relaxComputationFloat32toFloat16) {
    if (int code = ANeuralNetworksModel_relaxComputationFloat32toFloat16(out, true); code) {
      return fail(code, "relaxComputationFloat32toFloat16");
    }
  }
  for (size_t i = 0; i < subgraph.operands.size(); ++i) {
    const hal::Operand& operand = subgraph.operands[i];
    ANeuralNetworksOperandType type{};
    if (int code = typeCode(model, out, static_cast<int32_t>(operand.type), false, &type.type); code) {
      return fail(code, "getExtensionOperandType for operand " + std::to_string(i));
    }
    type.dimensionCount = static_cast<uint32_t>(operand.dimensions.size());
    type.dimensions = operand.dimensions.empty() ? nullptr : operand.dimensions.data();
    type.scale = operand.scale;
    type.zeroPoint = operand.zeroPoint;
    if (int code = ANeuralNetworksModel_addOperand(out, &type); code) {
      return fail(code, "addOperand " + std::to_string(i));
    }
    const auto index = static_cast<int32_t>(i);
    if (const auto* channels = std::get_if<hal::Operand::SymmPerChannelQuantParams>(&operand.extraParams)) {
      const ANeuralNetworksSymmPerChannelQuantParams params{channels->channelDim,
                                                            static_cast<uint32_t>(channels->scales.size()),
                                                            channels->scales.data()};
      if (int code = ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(out, index, &params); code) {
        return fail(code, "setOperandSymmPerChannelQuantParams " + std::to_string(i));
      }
    } else if (const auto* data = std::get_if<hal::Operand::ExtensionParams>(&operand.extraParams)) {
      if (int code = ANeuralNetworksModel_setOperandExtensionData(out, index, data->data(), data->size()); code) {
        return fail(code, "setOperandExtensionData " + std::to_string(i));
      }
    }
    int code = ANEURALNETWORKS_NO_ERROR;
    switch (operand.lifetime) {
      case hal::Operand::LifeTime::CONSTANT_COPY:
        if (!within(operand.location, model.operandValues.size())) return fail(ANEURALNETWORKS_BAD_DATA, "value location");
        code = ANeuralNetworksModel_setOperandValue(out, index, model.operandValues.data() + operand.location.offset,
                                                    operand.location.length);
        break;
      case hal::Operand::LifeTime::CONSTANT_REFERENCE: {
        if (operand.location.poolIndex >= model.pools.size()) return fail(ANEURALNETWORKS_BAD_DATA, "pool index");
        const auto& pool = model.pools[operand.location.poolIndex];
        if (!within(operand.location, pool->size())) return fail(ANEURALNETWORKS_BAD_DATA, "value location");
        code = ANeuralNetworksModel_setOperandValue(out, index, pool->data() + operand.location.offset,
                                                    operand.location.length);
        break;
      }
      case hal::Operand::LifeTime::NO_VALUE:
        code = ANeuralNetworksModel_setOperandValue(out, index, nullptr, 0);
        break;
      case hal::Operand::LifeTime::SUBGRAPH:
        // An out-of-range reference (an invalid model) is passed as NULL, which the call refuses.
        code = ANeuralNetworksModel_setOperandValueFromModel(
            out, index, 1 + operand.location.offset < models_.size() ? models_[1 + operand.location.offset] : nullptr);
        break;
      default:
        break;
    }
    if (code) return fail(code, "setting the value of operand " + std::to_string(i));
  }
  for (size_t i = 0; i < subgraph.operations.size(); ++i) {
    const hal::Operation& operation = subgraph.operations[i];
    int32_t type = 0;
    if (int code = typeCode(model, out, static_cast<int32_t>(operation.type), true, &type); code) {
      return fail(code, "getExtensionOperationType for operation " + std::to_string(i));
    }
    if (int code = ANeuralNetworksModel_addOperation(
            out, type, static_cast<uint32_t>(operation.inputs.size()), listOf(operation.inputs),
            static_cast<uint32_t>(operation.outputs.size()), listOf(operation.outputs));
        code) {
      return fail(code, "addOperation " + std::to_string(i) + " (" + hal::toString(operation.type) + ")");
    }
  }
  if (int code = ANeuralNetworksModel_identifyInputsAndOutputs(
          out, static_cast<uint32_t>(subgraph.inputIndexes.size()), listOf(subgraph.inputIndexes),
          static_cast<uint32_t>(subgraph.outputIndexes.size()), listOf(subgraph.outputIndexes));
      code) {
    return fail(code, "identifyInputsAndOutputs");
  }
  return fail(ANeuralNetworksModel_finish(out), "finish");
}

}  // namespace nnremote::testing
