#include "tests/conformance/mutations.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "hal/operand_types.h"

namespace nnremote::conformance {
namespace {

using hal::Model;
using hal::Operand;
using hal::OperandType;
using hal::Operation;
using hal::OperationType;
using LifeTime = Operand::LifeTime;

// Applies each kind at the places it fits: all of them, or the first and the last. Only one
// mutated copy of the model exists at a time.
template <typename Mutation, typename Original>
class Mutator {
 public:
  using Change = std::function<void(Mutation&)>;
  Mutator(const Original& original, Coverage coverage, const std::function<void(const Mutation&)>& visit)
      : original_(original), coverage_(coverage), visit_(visit) {}

  void begin(const char* kind) {
    kind_ = kind;
    first_.reset();
    last_.reset();
  }
  void place(std::string where, Change change) {
    if (coverage_ == Coverage::kAll) {
      emit(where, change);
    } else if (!first_) {
      first_.emplace(std::move(where), std::move(change));
    } else {
      last_.emplace(std::move(where), std::move(change));
    }
  }
  void end() {
    if (first_) emit(first_->first, first_->second);
    if (last_) emit(last_->first, last_->second);
    first_.reset();
    last_.reset();
  }

 private:
  void emit(const std::string& where, const Change& change);

  const Original& original_;
  const Coverage coverage_;
  const std::function<void(const Mutation&)>& visit_;
  std::string kind_;
  std::optional<std::pair<std::string, Change>> first_, last_;
};

template <>
void Mutator<ModelMutation, Model>::emit(const std::string& where, const Change& change) {
  ModelMutation mutation;
  mutation.kind = kind_;
  mutation.name = kind_ + ": " + where;
  mutation.model = original_;
  change(mutation);
  visit_(mutation);
}

template <>
void Mutator<RequestMutation, hal::Request>::emit(const std::string& where, const Change& change) {
  RequestMutation mutation;
  mutation.kind = kind_;
  mutation.name = kind_ + ": " + where;
  mutation.request = original_;
  change(mutation);
  visit_(mutation);
}

std::string str(size_t i) { return std::to_string(i); }

// How many times each operand is read by main's operations.
std::vector<uint32_t> countConsumers(const Model::Subgraph& subgraph) {
  std::vector<uint32_t> consumers(subgraph.operands.size(), 0);
  for (const Operation& operation : subgraph.operations) {
    for (uint32_t input : operation.inputs) {
      if (input < consumers.size()) ++consumers[input];
    }
  }
  return consumers;
}

bool isOemOrExtension(OperandType type) {
  return type == OperandType::OEM || type == OperandType::TENSOR_OEM_BYTE || hal::isExtension(type);
}

// The operand's data size, 0 where it is not known (unspecified dimensions, OEM or extension
// types), as VTS's sizeOfData.
size_t knownDataSize(const Operand& operand) {
  if (isOemOrExtension(operand.type) || operand.type == OperandType::SUBGRAPH) return 0;
  if (hal::hasUnspecifiedDimensions(operand)) return 0;
  return hal::sizeOfData(operand).value_or(0);
}

// VTS estimates a model's size on binder and makes no CONSTANT_COPY operand that would take it
// beyond half of IBinder.MAX_IPC_SIZE (exceedsBinderSizeLimit). We keep the same bound, which also
// keeps such mutations cheap.
size_t approximateWireSize(const Model& model) {
  size_t size = model.operandValues.size() + model.pools.size() * 16;
  auto subgraphSize = [](const Model::Subgraph& subgraph) {
    size_t s = 4 * (subgraph.inputIndexes.size() + subgraph.outputIndexes.size());
    for (const Operand& operand : subgraph.operands) {
      s += 4 /*type*/ + 4 * operand.dimensions.size() + 4 /*scale*/ + 4 /*zero point*/ + 4 /*lifetime*/ +
           12 /*location*/;
      if (const auto* channel = std::get_if<Operand::SymmPerChannelQuantParams>(&operand.extraParams)) {
        s += 4 * channel->scales.size() + 4;
      } else if (const auto* extension = std::get_if<Operand::ExtensionParams>(&operand.extraParams)) {
        s += extension->size();
      }
    }
    for (const Operation& operation : subgraph.operations) {
      s += 4 + 4 * (operation.inputs.size() + operation.outputs.size());
    }
    return s;
  };
  size += subgraphSize(model.main);
  for (const auto& subgraph : model.referenced) size += subgraphSize(subgraph);
  for (const auto& extension : model.extensionNameToPrefix) size += extension.name.size() + 2;
  return size + 1;
}

// Whether `operand` can be made a CONSTANT_COPY the way VTS does it: a known size, and a model
// that stays within VTS's size bound once operandValues holds that many bytes.
bool canBecomeConstantCopy(const Model& model, size_t modelSize, const Operand& operand) {
  const size_t size = knownDataSize(operand);
  if (size == 0) return false;
  const size_t extra = model.operandValues.size() < size ? size - model.operandValues.size() : 0;
  return modelSize + extra <= 64 * 1024 / 2;
}

// Gives `operand` (already CONSTANT_COPY) the first bytes of operandValues, growing it with zeros
// where needed (the value is arbitrary: it is the lifetime that makes the model invalid).
void becomeConstantCopy(Model& model, Operand& operand) {
  const size_t size = knownDataSize(operand);
  operand.location = {};
  operand.location.length = static_cast<uint32_t>(size);
  if (model.operandValues.size() < size) model.operandValues.resize(size, 0);
}

void eraseValue(std::vector<uint32_t>& values, uint32_t value) {
  values.erase(std::remove(values.begin(), values.end(), value), values.end());
}

// A new scalar INT32 operand of `lifetime`, as VTS's addOperand.
uint32_t addInt32Operand(Model& model, LifeTime lifetime) {
  Operand operand;
  operand.type = OperandType::INT32;
  operand.lifetime = lifetime;
  model.main.operands.push_back(operand);
  return static_cast<uint32_t>(model.main.operands.size() - 1);
}

// A copy of output operand `index` that nobody reads and that is not a model output.
uint32_t addUnreadCopy(Model& model, uint32_t index) {
  Operand copy = model.main.operands[index];
  copy.lifetime = LifeTime::TEMPORARY_VARIABLE;
  copy.location = {};
  model.main.operands.push_back(copy);
  return static_cast<uint32_t>(model.main.operands.size() - 1);
}

// ---- Operand type, rank, scale, zero point ---------------------------------------------------

// VTS's invalidOperandTypes: around the fundamental range (HIDL and AIDL) and the OEM range (HIDL).
const int32_t kInvalidOperandTypes[] = {
    -1,
    static_cast<int32_t>(OperandType::SUBGRAPH) + 1,
    static_cast<int32_t>(OperandType::OEM) - 1,
    static_cast<int32_t>(OperandType::TENSOR_OEM_BYTE) + 1,
};

// VTS's getInvalidRank: a scalar given rank 1. Tensors have no invalid rank in general.
uint32_t invalidRank(OperandType type) {
  switch (type) {
    case OperandType::FLOAT16:
    case OperandType::FLOAT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::BOOL:
      return 1;
    default:
      return 0;
  }
}

// VTS's getInvalidScale per type, with a negative scale added for the quantized types. OEM and
// extension types have no scale rule, so nothing is made for them.
std::vector<float> invalidScales(OperandType type) {
  switch (type) {
    case OperandType::FLOAT16:
    case OperandType::FLOAT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
    case OperandType::TENSOR_FLOAT16:
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::SUBGRAPH:
      return {1.0f};
    case OperandType::TENSOR_INT32:
      return {-1.0f};
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
      return {0.0f, -1.0f};
    default:
      return {};
  }
}

// VTS's getInvalidZeroPoints per type; TENSOR_QUANT8_ASYMM_SIGNED (which VTS leaves out) gets
// the two values just outside [-128, 127].
std::vector<int32_t> invalidZeroPoints(OperandType type) {
  switch (type) {
    case OperandType::FLOAT16:
    case OperandType::FLOAT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
    case OperandType::TENSOR_FLOAT16:
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_INT32:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::SUBGRAPH:
      return {1};
    case OperandType::TENSOR_QUANT8_ASYMM:
      return {-1, 256};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return {-129, 128};
    case OperandType::TENSOR_QUANT8_SYMM:
      return {-129, -1, 1, 128};
    case OperandType::TENSOR_QUANT16_ASYMM:
      return {-1, 65536};
    case OperandType::TENSOR_QUANT16_SYMM:
      return {-32769, -1, 1, 32768};
    default:
      return {};
  }
}

// ---- Operand lifetime ------------------------------------------------------------------------

// VTS's getInvalidLifeTimes: a lifetime that changes whether the operand must have a writer.
std::vector<LifeTime> invalidLifeTimes(const Model& model, size_t modelSize, const Operand& operand) {
  std::vector<LifeTime> lifetimes;
  switch (operand.lifetime) {
    case LifeTime::SUBGRAPH_OUTPUT:
    case LifeTime::TEMPORARY_VARIABLE:
      lifetimes = {LifeTime::SUBGRAPH_INPUT, LifeTime::CONSTANT_COPY};
      break;
    case LifeTime::CONSTANT_COPY:
    case LifeTime::CONSTANT_REFERENCE:
    case LifeTime::POINTER:
    case LifeTime::SUBGRAPH_INPUT:
      lifetimes = {LifeTime::TEMPORARY_VARIABLE, LifeTime::SUBGRAPH_OUTPUT};
      break;
    case LifeTime::NO_VALUE:  // written or not: nothing tells which lifetime would be wrong
    case LifeTime::SUBGRAPH:
      break;
  }
  if (!canBecomeConstantCopy(model, modelSize, operand)) {
    lifetimes.erase(std::remove(lifetimes.begin(), lifetimes.end(), LifeTime::CONSTANT_COPY), lifetimes.end());
  }
  return lifetimes;
}

// VTS's getInputOutputLifeTime: a lifetime that changes whether the operand is a model input, a
// model output or neither, but not whether it must have a writer.
std::optional<LifeTime> inputOutputLifeTime(const Model& model, size_t modelSize, const Operand& operand) {
  switch (operand.lifetime) {
    case LifeTime::CONSTANT_COPY:
    case LifeTime::CONSTANT_REFERENCE:
    case LifeTime::POINTER:
      return LifeTime::SUBGRAPH_INPUT;
    case LifeTime::SUBGRAPH_INPUT:
      if (!canBecomeConstantCopy(model, modelSize, operand)) return std::nullopt;
      return LifeTime::CONSTANT_COPY;
    case LifeTime::SUBGRAPH_OUTPUT:
      return LifeTime::TEMPORARY_VARIABLE;
    case LifeTime::TEMPORARY_VARIABLE:
      return LifeTime::SUBGRAPH_OUTPUT;
    case LifeTime::NO_VALUE:
    case LifeTime::SUBGRAPH:
      break;
  }
  return std::nullopt;
}

// ---- Operation operand type ------------------------------------------------------------------

// The types mutateOperationOperandTypeTest tries: every HAL 1.3 type but the OEM ones.
const OperandType kAllOperandTypes[] = {
    OperandType::FLOAT32,
    OperandType::INT32,
    OperandType::UINT32,
    OperandType::TENSOR_FLOAT32,
    OperandType::TENSOR_INT32,
    OperandType::TENSOR_QUANT8_ASYMM,
    OperandType::BOOL,
    OperandType::TENSOR_QUANT16_SYMM,
    OperandType::TENSOR_FLOAT16,
    OperandType::TENSOR_BOOL8,
    OperandType::FLOAT16,
    OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL,
    OperandType::TENSOR_QUANT16_ASYMM,
    OperandType::TENSOR_QUANT8_SYMM,
    OperandType::TENSOR_QUANT8_ASYMM_SIGNED,
    OperandType::SUBGRAPH,
};

// VTS's mutateOperand: operand `index` made of `type`, with dimensions and quantization that are
// valid for that type (a tensor keeps its dimensions, or gets {1}; a quantized tensor keeps its
// scale, or gets 1, and its zero point where the new type allows it, else 0; a per-channel tensor
// gets scales of 1 along dimension 0). Two departures from VTS make the operation's signature the
// only thing wrong: TENSOR_QUANT8_ASYMM_SIGNED gets quantization like the other quantized types
// (VTS changes only its type, leaving a scale of 0 behind for float operands), and a constant's
// data is resized to the new type's size (VTS leaves its length, which the new type contradicts):
// shortened in place, or, where it grows, moved to new zero bytes at the end of operandValues.
void changeOperandType(Model& model, size_t index, OperandType type) {
  Operand& operand = model.main.operands[index];
  const Operand original = operand;
  operand.type = type;
  const std::vector<uint32_t> tensorDimensions =
      original.dimensions.empty() ? std::vector<uint32_t>{1} : original.dimensions;
  auto zeroPointIn = [&](int32_t low, int32_t high) {
    return original.zeroPoint >= low && original.zeroPoint <= high ? original.zeroPoint : 0;
  };
  if (type != OperandType::SUBGRAPH) operand.extraParams = Operand::NoParams{};
  switch (type) {
    case OperandType::FLOAT16:
    case OperandType::FLOAT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::BOOL:
      operand.dimensions.clear();
      operand.scale = 0.0f;
      operand.zeroPoint = 0;
      break;
    case OperandType::TENSOR_BOOL8:
    case OperandType::TENSOR_FLOAT16:
    case OperandType::TENSOR_FLOAT32:
      operand.dimensions = tensorDimensions;
      operand.scale = 0.0f;
      operand.zeroPoint = 0;
      break;
    case OperandType::TENSOR_INT32:
      operand.dimensions = tensorDimensions;
      operand.zeroPoint = 0;
      break;
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_QUANT16_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      operand.dimensions = tensorDimensions;
      operand.scale = original.scale > 0.0f ? original.scale : 1.0f;
      operand.zeroPoint = type == OperandType::TENSOR_QUANT8_ASYMM          ? zeroPointIn(0, 255)
                          : type == OperandType::TENSOR_QUANT16_ASYMM       ? zeroPointIn(0, 65535)
                          : type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? zeroPointIn(-128, 127)
                                                                            : 0;
      break;
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: {
      operand.dimensions = tensorDimensions;
      operand.scale = 0.0f;
      operand.zeroPoint = 0;
      Operand::SymmPerChannelQuantParams channel;
      channel.channelDim = 0;
      channel.scales.assign(std::max<uint32_t>(operand.dimensions[0], 1), 1.0f);
      operand.extraParams = std::move(channel);
      break;
    }
    default:  // SUBGRAPH: only the type changes, as in VTS (the lifetime then contradicts it)
      return;
  }
  const bool constant = original.lifetime == LifeTime::CONSTANT_COPY ||
                        original.lifetime == LifeTime::CONSTANT_REFERENCE || original.lifetime == LifeTime::POINTER;
  const size_t size = knownDataSize(operand);
  if (!constant || size == 0 || size == original.location.length) return;
  if (size < original.location.length) {
    operand.location.length = static_cast<uint32_t>(size);
    return;
  }
  const size_t offset = (model.operandValues.size() + 7) / 8 * 8;
  model.operandValues.resize(offset + size, 0);
  operand.lifetime = LifeTime::CONSTANT_COPY;
  operand.location = {};
  operand.location.offset = static_cast<uint32_t>(offset);
  operand.location.length = static_cast<uint32_t>(size);
}

bool isOneOf(OperandType type, std::initializer_list<OperandType> types) {
  return std::find(types.begin(), types.end(), type) != types.end();
}

// VTS's mutateOperationOperandTypeSkip: operands of operations that accept more than one type
// there. Like VTS, CAST, ARGMAX and ARGMIN anywhere in the model exempt these types for every
// operand. One rule of ours is added (CONV_2D's and DEPTHWISE_CONV_2D's padding/layout switch).
bool operationOperandTypeSkip(const Model::Subgraph& subgraph, uint32_t operand, OperandType type) {
  if (type == subgraph.operands[operand].type || type == OperandType::OEM || type == OperandType::TENSOR_OEM_BYTE) {
    return true;
  }
  auto isInput = [](const Operation& operation, size_t i, uint32_t operand) {
    return i < operation.inputs.size() && operation.inputs[i] == operand;
  };
  auto isOutput = [](const Operation& operation, size_t i, uint32_t operand) {
    return i < operation.outputs.size() && operation.outputs[i] == operand;
  };
  using T = OperandType;
  for (const Operation& operation : subgraph.operations) {
    switch (operation.type) {
      case OperationType::LSH_PROJECTION:
        if (isInput(operation, 1, operand)) return true;
        break;
      case OperationType::CAST:
      case OperationType::ARGMAX:
      case OperationType::ARGMIN:
        if (isOneOf(type, {T::TENSOR_FLOAT16, T::TENSOR_FLOAT32, T::TENSOR_INT32, T::TENSOR_QUANT8_ASYMM,
                           T::TENSOR_QUANT8_ASYMM_SIGNED})) {
          return true;
        }
        break;
      case OperationType::QUANTIZE:
        if (isInput(operation, 0, operand) && isOneOf(type, {T::TENSOR_FLOAT16, T::TENSOR_FLOAT32})) return true;
        if (isOutput(operation, 0, operand) &&
            isOneOf(type, {T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM_SIGNED})) {
          return true;
        }
        break;
      case OperationType::RANDOM_MULTINOMIAL:
        if (isInput(operation, 0, operand) && isOneOf(type, {T::TENSOR_FLOAT16, T::TENSOR_FLOAT32})) return true;
        break;
      case OperationType::DEQUANTIZE:
        if (isInput(operation, 0, operand) &&
            isOneOf(type, {T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM_SIGNED, T::TENSOR_QUANT8_SYMM,
                           T::TENSOR_QUANT8_SYMM_PER_CHANNEL})) {
          return true;
        }
        if (isOutput(operation, 0, operand) && isOneOf(type, {T::TENSOR_FLOAT16, T::TENSOR_FLOAT32})) return true;
        break;
      case OperationType::TRANSPOSE_CONV_2D:
      case OperationType::GROUPED_CONV_2D:
      case OperationType::DEPTHWISE_CONV_2D:
      case OperationType::CONV_2D:
        if (isInput(operation, 1, operand) &&
            isOneOf(type, {T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_SYMM_PER_CHANNEL})) {
          return true;
        }
        // Ours: CONV_2D with 10 inputs and DEPTHWISE_CONV_2D with 11 are either explicit padding
        // without a layout or implicit padding with a layout and dilation; the type of input 7
        // (resp. 8), INT32 or BOOL, says which, so either type is valid there. VTS needs no such
        // rule because its mutation leaves the constant's old length (1 byte for a BOOL, 4 for an
        // INT32), which the new type contradicts; ours resizes the data (see changeOperandType).
        if (isOneOf(type, {T::INT32, T::BOOL}) &&
            ((operation.type == OperationType::CONV_2D && operation.inputs.size() == 10 &&
              isInput(operation, 7, operand)) ||
             (operation.type == OperationType::DEPTHWISE_CONV_2D && operation.inputs.size() == 11 &&
              isInput(operation, 8, operand)))) {
          return true;
        }
        break;
      case OperationType::AXIS_ALIGNED_BBOX_TRANSFORM:
        if (isInput(operation, 1, operand) &&
            isOneOf(type, {T::TENSOR_QUANT8_ASYMM, T::TENSOR_QUANT8_ASYMM_SIGNED})) {
          return true;
        }
        break;
      case OperationType::RANK:
        if (isInput(operation, 0, operand) && hal::isTensor(type)) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

// ---- Operation inputs and outputs --------------------------------------------------------------

// VTS's removeOperationInputSkip (AIDL): removing this input leaves another valid form of the
// operation (an optional trailing input, or one of a variable number of inputs).
bool removeOperationInputSkip(const Operation& operation, size_t input) {
  const size_t n = operation.inputs.size();
  switch (operation.type) {
    case OperationType::CONCATENATION:
      return n > 2 && input != n - 1;
    case OperationType::DEPTHWISE_CONV_2D:
      return (n == 12 && input == 11) || (n == 9 && input == 8);
    case OperationType::CONV_2D:
    case OperationType::AVERAGE_POOL_2D:
    case OperationType::MAX_POOL_2D:
    case OperationType::L2_POOL_2D:
      return (n == 11 && input == 10) || (n == 8 && input == 7);
    case OperationType::RESIZE_BILINEAR:
      return n >= 4 && input >= 3;
    case OperationType::RESIZE_NEAREST_NEIGHBOR:
      return n >= 5 && input >= 3;
    case OperationType::SPACE_TO_DEPTH:
    case OperationType::DEPTH_TO_SPACE:
    case OperationType::BATCH_TO_SPACE_ND:
      return n == 3 && input == 2;
    case OperationType::SPACE_TO_BATCH_ND:
      return n == 4 && input == 3;
    case OperationType::L2_NORMALIZATION:
      return n == 2 && input == 1;
    case OperationType::LOCAL_RESPONSE_NORMALIZATION:
      return n == 6 && input == 5;
    case OperationType::SOFTMAX:
      return n == 3 && input == 2;
    case OperationType::PACK:
      return n > 2 && input != 0;
    default:
      return false;
  }
}

// VTS's addOperationInputSkip: an extra INT32 input is a valid optional input of these forms.
bool addOperationInputSkip(const Operation& operation) {
  const size_t n = operation.inputs.size();
  return (operation.type == OperationType::L2_NORMALIZATION && n == 1) ||
         (operation.type == OperationType::LOCAL_RESPONSE_NORMALIZATION && n == 5) ||
         (operation.type == OperationType::SOFTMAX && n == 2) ||
         (operation.type == OperationType::RESIZE_BILINEAR && n < 6) ||
         (operation.type == OperationType::RESIZE_NEAREST_NEIGHBOR && n < 6);
}

// ---- Removing an operand -----------------------------------------------------------------------

// Removes `value` from `values` and renumbers the operands after it.
void removeAndRenumber(std::vector<uint32_t>& values, uint32_t value) {
  eraseValue(values, value);
  for (uint32_t& v : values) {
    if (v > value) --v;
  }
}

void removeOperand(Model& model, uint32_t index) {
  auto& subgraph = model.main;
  subgraph.operands.erase(subgraph.operands.begin() + index);
  for (Operation& operation : subgraph.operations) {
    removeAndRenumber(operation.inputs, index);
    removeAndRenumber(operation.outputs, index);
  }
  removeAndRenumber(subgraph.inputIndexes, index);
  removeAndRenumber(subgraph.outputIndexes, index);
}

// VTS's removeOperandSkip: an operand nobody reads (removing it changes nothing that matters), an
// output of SPLIT (whose output count prepareModel does not check) or of the sequence RNNs and
// LSTMs (which have several valid output counts). VTS's renumbering has a bug (it never
// decrements), which leaves an index out of range in almost every mutation; renumbering as
// intended, removing a model input or a constant also takes it out of the operations that read
// it, so the operations where that leaves a valid form (removeOperationInputSkip) are skipped
// too.
bool removeOperandSkip(const Model::Subgraph& subgraph, uint32_t operand, const std::vector<uint32_t>& consumers) {
  if (consumers[operand] == 0) return true;
  bool written = false;
  for (const Operation& operation : subgraph.operations) {
    const bool isOutput =
        std::find(operation.outputs.begin(), operation.outputs.end(), operand) != operation.outputs.end();
    written = written || isOutput;
    if (isOutput && (operation.type == OperationType::SPLIT ||
                     operation.type == OperationType::UNIDIRECTIONAL_SEQUENCE_LSTM ||
                     operation.type == OperationType::UNIDIRECTIONAL_SEQUENCE_RNN ||
                     operation.type == OperationType::BIDIRECTIONAL_SEQUENCE_LSTM ||
                     operation.type == OperationType::BIDIRECTIONAL_SEQUENCE_RNN)) {
      return true;
    }
  }
  if (written) return false;  // its writer loses an output: every other writer has a fixed count
  for (const Operation& operation : subgraph.operations) {
    for (size_t i = 0; i < operation.inputs.size(); ++i) {
      if (operation.inputs[i] == operand && removeOperationInputSkip(operation, i)) return true;
    }
  }
  return false;
}

// ---- The kinds ---------------------------------------------------------------------------------

using ModelMutator = Mutator<ModelMutation, Model>;

void mutateExecutionOrderTest(ModelMutator& m, const Model& model, const std::vector<uint32_t>& consumers) {
  m.begin("mutateExecutionOrderTest");
  const auto& g = model.main;
  for (size_t o = 0; o < g.operations.size(); ++o) {
    const Operation& operation = g.operations[o];
    // A reader of another operation's output, moved first: it reads before the write.
    for (uint32_t input : operation.inputs) {
      const LifeTime lifetime = g.operands[input].lifetime;
      if (lifetime == LifeTime::TEMPORARY_VARIABLE || lifetime == LifeTime::SUBGRAPH_OUTPUT) {
        m.place("operation " + str(o) + " is a reader", [o](ModelMutation& mu) {
          auto& ops = mu.model.main.operations;
          std::rotate(ops.begin(), ops.begin() + o, ops.begin() + o + 1);
        });
        break;
      }
    }
    // A writer of what another operation reads, moved last: it writes after the read.
    for (uint32_t output : operation.outputs) {
      if (consumers[output] > 0) {
        m.place("operation " + str(o) + " is a writer", [o](ModelMutation& mu) {
          auto& ops = mu.model.main.operations;
          std::rotate(ops.begin() + o, ops.begin() + o + 1, ops.end());
        });
        break;
      }
    }
  }
  m.end();
}

void mutateOperandTypeTest(ModelMutator& m, const Model& model) {
  m.begin("mutateOperandTypeTest");
  for (size_t i = 0; i < model.main.operands.size(); ++i) {
    for (int32_t value : kInvalidOperandTypes) {
      m.place("operand " + str(i) + " set to value " + std::to_string(value), [i, value](ModelMutation& mu) {
        mu.model.main.operands[i].type = static_cast<OperandType>(value);
      });
    }
  }
  m.end();
}

void mutateOperandRankTest(ModelMutator& m, const Model& model) {
  m.begin("mutateOperandRankTest");
  for (size_t i = 0; i < model.main.operands.size(); ++i) {
    const uint32_t rank = invalidRank(model.main.operands[i].type);
    if (rank == 0) continue;
    m.place("operand " + str(i) + " has rank of " + str(rank), [i, rank](ModelMutation& mu) {
      mu.model.main.operands[i].dimensions.assign(rank, 0);
    });
  }
  m.end();
}

void mutateOperandScaleTest(ModelMutator& m, const Model& model) {
  m.begin("mutateOperandScaleTest");
  for (size_t i = 0; i < model.main.operands.size(); ++i) {
    for (float scale : invalidScales(model.main.operands[i].type)) {
      m.place("operand " + str(i) + " has scale of " + std::to_string(scale),
              [i, scale](ModelMutation& mu) { mu.model.main.operands[i].scale = scale; });
    }
  }
  m.end();
}

void mutateOperandZeroPointTest(ModelMutator& m, const Model& model) {
  m.begin("mutateOperandZeroPointTest");
  for (size_t i = 0; i < model.main.operands.size(); ++i) {
    for (int32_t zeroPoint : invalidZeroPoints(model.main.operands[i].type)) {
      m.place("operand " + str(i) + " has zero point of " + std::to_string(zeroPoint),
              [i, zeroPoint](ModelMutation& mu) { mu.model.main.operands[i].zeroPoint = zeroPoint; });
    }
  }
  m.end();
}

void mutateOperandLifeTimeTest(ModelMutator& m, const Model& model, size_t modelSize) {
  m.begin("mutateOperandLifeTimeTest");
  for (size_t i = 0; i < model.main.operands.size(); ++i) {
    const Operand& operand = model.main.operands[i];
    for (LifeTime lifetime : invalidLifeTimes(model, modelSize, operand)) {
      m.place("operand " + str(i) + " has lifetime " + hal::toString(lifetime) + " instead of lifetime " +
                  hal::toString(operand.lifetime),
              [i, lifetime](ModelMutation& mu) {
                auto& g = mu.model.main;
                const uint32_t index = static_cast<uint32_t>(i);
                Operand& target = g.operands[i];
                if (target.lifetime == LifeTime::SUBGRAPH_INPUT) eraseValue(g.inputIndexes, index);
                if (target.lifetime == LifeTime::SUBGRAPH_OUTPUT) eraseValue(g.outputIndexes, index);
                target.lifetime = lifetime;
                target.location = {};
                if (lifetime == LifeTime::CONSTANT_COPY) becomeConstantCopy(mu.model, target);
                if (lifetime == LifeTime::SUBGRAPH_INPUT) g.inputIndexes.push_back(index);
                if (lifetime == LifeTime::SUBGRAPH_OUTPUT) g.outputIndexes.push_back(index);
              });
    }
  }
  m.end();
}

void mutateOperandInputOutputTest(ModelMutator& m, const Model& model, size_t modelSize) {
  m.begin("mutateOperandInputOutputTest");
  for (size_t i = 0; i < model.main.operands.size(); ++i) {
    const Operand& operand = model.main.operands[i];
    const std::optional<LifeTime> lifetime = inputOutputLifeTime(model, modelSize, operand);
    if (!lifetime) continue;
    const LifeTime changed = *lifetime;
    m.place("operand " + str(i) + " has lifetime " + hal::toString(changed) + " instead of lifetime " +
                hal::toString(operand.lifetime),
            [i, changed](ModelMutation& mu) {
              // The model's input and output lists stay as they were.
              Operand& target = mu.model.main.operands[i];
              target.lifetime = changed;
              target.location = {};
              if (changed == LifeTime::CONSTANT_COPY) becomeConstantCopy(mu.model, target);
            });
  }
  m.end();
}

void mutateOperandAddWriterTest(ModelMutator& m, const Model& model) {
  m.begin("mutateOperandAddWriterTest");
  const auto& ops = model.main.operations;
  for (size_t o = 0; o < ops.size(); ++o) {
    for (size_t bad = 0; bad < ops[o].outputs.size(); ++bad) {
      m.place("operation " + str(o) + " writes to " + str(ops[o].outputs[bad]), [o, bad](ModelMutation& mu) {
        // A copy of the operation, appended (after every writer of its inputs), whose other
        // outputs are new operands: only this one output is written twice.
        Operation copy = mu.model.main.operations[o];
        for (size_t k = 0; k < copy.outputs.size(); ++k) {
          if (k != bad) copy.outputs[k] = addUnreadCopy(mu.model, copy.outputs[k]);
        }
        mu.model.main.operations.push_back(std::move(copy));
      });
    }
  }
  m.end();
}

void mutateOperationOperandTypeTest(ModelMutator& m, const Model& model) {
  m.begin("mutateOperationOperandTypeTest");
  for (size_t i = 0; i < model.main.operands.size(); ++i) {
    for (OperandType type : kAllOperandTypes) {
      if (operationOperandTypeSkip(model.main, static_cast<uint32_t>(i), type)) continue;
      m.place("operand " + str(i) + " set to type " + hal::toString(type),
              [i, type](ModelMutation& mu) { changeOperandType(mu.model, i, type); });
    }
  }
  m.end();
}

void mutateOperationTypeTest(ModelMutator& m, const Model& model) {
  // VTS's invalidOperationTypes: around the fundamental range (HIDL, AIDL) and the OEM range.
  const int32_t invalid[] = {-1, hal::kLastOperationType + 1, static_cast<int32_t>(OperationType::OEM_OPERATION) - 1,
                             static_cast<int32_t>(OperationType::OEM_OPERATION) + 1};
  m.begin("mutateOperationTypeTest");
  for (size_t o = 0; o < model.main.operations.size(); ++o) {
    for (int32_t value : invalid) {
      m.place("operation " + str(o) + " set to value " + std::to_string(value), [o, value](ModelMutation& mu) {
        mu.model.main.operations[o].type = static_cast<OperationType>(value);
      });
    }
  }
  m.end();
}

void mutateOperationOperandIndexTests(ModelMutator& m, const Model& model) {
  const uint32_t pastEnd = static_cast<uint32_t>(model.main.operands.size());
  const auto& ops = model.main.operations;
  m.begin("mutateOperationInputOperandIndexTest");
  for (size_t o = 0; o < ops.size(); ++o) {
    for (size_t k = 0; k < ops[o].inputs.size(); ++k) {
      m.place("operation " + str(o) + " input " + str(k),
              [o, k, pastEnd](ModelMutation& mu) { mu.model.main.operations[o].inputs[k] = pastEnd; });
    }
  }
  m.end();
  m.begin("mutateOperationOutputOperandIndexTest");
  for (size_t o = 0; o < ops.size(); ++o) {
    for (size_t k = 0; k < ops[o].outputs.size(); ++k) {
      m.place("operation " + str(o) + " output " + str(k),
              [o, k, pastEnd](ModelMutation& mu) { mu.model.main.operations[o].outputs[k] = pastEnd; });
    }
  }
  m.end();
}

void mutateOperationRemoveWriteTest(ModelMutator& m, const Model& model, const std::vector<uint32_t>& consumers) {
  m.begin("mutateOperationRemoveWriteTest");
  const auto& ops = model.main.operations;
  for (size_t o = 0; o < ops.size(); ++o) {
    for (size_t k = 0; k < ops[o].outputs.size(); ++k) {
      const uint32_t output = ops[o].outputs[k];
      if (consumers[output] == 0) continue;
      // The operation writes a new operand instead: its readers read what nobody writes.
      m.place("operation " + str(o) + " writes to " + str(output), [o, k](ModelMutation& mu) {
        uint32_t& index = mu.model.main.operations[o].outputs[k];
        index = addUnreadCopy(mu.model, index);
      });
    }
  }
  m.end();
}

void removeOperandTest(ModelMutator& m, const Model& model, const std::vector<uint32_t>& consumers) {
  m.begin("removeOperandTest");
  for (size_t i = 0; i < model.main.operands.size(); ++i) {
    if (removeOperandSkip(model.main, static_cast<uint32_t>(i), consumers)) continue;
    m.place("operand " + str(i), [i](ModelMutation& mu) { removeOperand(mu.model, static_cast<uint32_t>(i)); });
  }
  m.end();
}

void removeOperationTests(ModelMutator& m, const Model& model) {
  const auto& ops = model.main.operations;
  m.begin("removeOperationTest");
  for (size_t o = 0; o < ops.size(); ++o) {
    m.place("operation " + str(o), [o](ModelMutation& mu) {
      auto& list = mu.model.main.operations;
      list.erase(list.begin() + static_cast<long>(o));
    });
  }
  m.end();
  m.begin("removeOperationInputTest");
  for (size_t o = 0; o < ops.size(); ++o) {
    for (size_t k = 0; k < ops[o].inputs.size(); ++k) {
      if (removeOperationInputSkip(ops[o], k)) continue;
      m.place("operation " + str(o) + ", input " + str(k), [o, k](ModelMutation& mu) {
        auto& inputs = mu.model.main.operations[o].inputs;
        inputs.erase(inputs.begin() + static_cast<long>(k));
      });
    }
  }
  m.end();
  m.begin("removeOperationOutputTest");
  for (size_t o = 0; o < ops.size(); ++o) {
    for (size_t k = 0; k < ops[o].outputs.size(); ++k) {
      m.place("operation " + str(o) + ", output " + str(k), [o, k](ModelMutation& mu) {
        auto& outputs = mu.model.main.operations[o].outputs;
        outputs.erase(outputs.begin() + static_cast<long>(k));
      });
    }
  }
  m.end();
}

void addOperationTests(ModelMutator& m, const Model& model) {
  const auto& ops = model.main.operations;
  m.begin("addOperationInputTest");
  for (size_t o = 0; o < ops.size(); ++o) {
    if (addOperationInputSkip(ops[o])) continue;
    m.place("operation " + str(o), [o](ModelMutation& mu) {
      const uint32_t index = addInt32Operand(mu.model, LifeTime::SUBGRAPH_INPUT);
      mu.model.main.operations[o].inputs.push_back(index);
      mu.model.main.inputIndexes.push_back(index);
    });
  }
  m.end();
  m.begin("addOperationOutputTest");
  for (size_t o = 0; o < ops.size(); ++o) {
    m.place("operation " + str(o), [o](ModelMutation& mu) {
      const uint32_t index = addInt32Operand(mu.model, LifeTime::SUBGRAPH_OUTPUT);
      mu.model.main.operations[o].outputs.push_back(index);
      mu.model.main.outputIndexes.push_back(index);
    });
  }
  m.end();
}

// VTS's CycleTest, applied to the model: an operation made to read an output of a later operation
// that itself reads (directly) an output of the first, so that no execution order exists. Where
// possible it replaces an input of the output's type, so that the operation's signature still
// holds and only the cycle is wrong.
void cycleTest(ModelMutator& m, const Model& model) {
  m.begin("CycleTest");
  const auto& g = model.main;
  const auto& ops = g.operations;
  for (size_t j = 0; j < ops.size(); ++j) {
    if (ops[j].inputs.empty()) continue;
    for (size_t i = j + 1; i < ops.size(); ++i) {
      const bool readsJ = std::any_of(ops[i].inputs.begin(), ops[i].inputs.end(), [&](uint32_t input) {
        return std::find(ops[j].outputs.begin(), ops[j].outputs.end(), input) != ops[j].outputs.end();
      });
      if (!readsJ || ops[i].outputs.empty()) continue;
      size_t slot = 0;
      uint32_t output = ops[i].outputs[0];
      bool matched = false;
      for (size_t k = 0; k < ops[j].inputs.size() && !matched; ++k) {
        const Operand& in = g.operands[ops[j].inputs[k]];
        for (uint32_t candidate : ops[i].outputs) {
          const Operand& out = g.operands[candidate];
          if (in.type == out.type && in.dimensions == out.dimensions && in.scale == out.scale &&
              in.zeroPoint == out.zeroPoint) {
            slot = k;
            output = candidate;
            matched = true;
            break;
          }
        }
      }
      m.place("operation " + str(j) + " input " + str(slot) + " reads operand " + str(output) +
                  " of its reader, operation " + str(i),
              [j, slot, output](ModelMutation& mu) { mu.model.main.operations[j].inputs[slot] = output; });
    }
  }
  m.end();
}

// Ours: model input and output lists naming an operand that does not exist, and a lifetime that
// is no lifetime.
void ourIndexTests(ModelMutator& m, const Model& model) {
  const uint32_t pastEnd = static_cast<uint32_t>(model.main.operands.size());
  m.begin("mutateModelInputIndexTest");
  for (size_t k = 0; k < model.main.inputIndexes.size(); ++k) {
    m.place("inputIndexes[" + str(k) + "] past the end",
            [k, pastEnd](ModelMutation& mu) { mu.model.main.inputIndexes[k] = pastEnd; });
  }
  m.end();
  m.begin("mutateModelOutputIndexTest");
  for (size_t k = 0; k < model.main.outputIndexes.size(); ++k) {
    m.place("outputIndexes[" + str(k) + "] past the end",
            [k, pastEnd](ModelMutation& mu) { mu.model.main.outputIndexes[k] = pastEnd; });
  }
  m.end();
  m.begin("mutateOperandLifeTimeValueTest");
  for (size_t i = 0; i < model.main.operands.size(); ++i) {
    m.place("operand " + str(i) + " lifetime 99 (not a lifetime)", [i](ModelMutation& mu) {
      mu.model.main.operands[i].lifetime = static_cast<LifeTime>(99);
    });
  }
  m.end();
}

void preparationTests(ModelMutator& m) {
  m.begin("mutateExecutionPreferenceTest");
  for (int32_t value : {static_cast<int32_t>(hal::ExecutionPreference::LOW_POWER) - 1,
                        static_cast<int32_t>(hal::ExecutionPreference::SUSTAINED_SPEED) + 1}) {
    m.place("preference " + std::to_string(value), [value](ModelMutation& mu) {
      mu.preference = static_cast<hal::ExecutionPreference>(value);
    });
  }
  m.end();
  m.begin("mutateExecutionPriorityTest");
  for (int32_t value : {static_cast<int32_t>(hal::Priority::LOW) - 1, static_cast<int32_t>(hal::Priority::HIGH) + 1}) {
    m.place("priority " + std::to_string(value),
            [value](ModelMutation& mu) { mu.priority = static_cast<hal::Priority>(value); });
  }
  m.end();
}

}  // namespace

void forEachModelMutation(const Model& model, Coverage coverage,
                          const std::function<void(const ModelMutation&)>& visit) {
  ModelMutator m(model, coverage, visit);
  const std::vector<uint32_t> consumers = countConsumers(model.main);
  const size_t modelSize = approximateWireSize(model);
  mutateExecutionOrderTest(m, model, consumers);
  mutateOperandTypeTest(m, model);
  mutateOperandRankTest(m, model);
  mutateOperandScaleTest(m, model);
  mutateOperandZeroPointTest(m, model);
  mutateOperandLifeTimeTest(m, model, modelSize);
  mutateOperandInputOutputTest(m, model, modelSize);
  mutateOperandAddWriterTest(m, model);
  mutateOperationOperandTypeTest(m, model);
  mutateOperationTypeTest(m, model);
  mutateOperationOperandIndexTests(m, model);
  mutateOperationRemoveWriteTest(m, model, consumers);
  removeOperandTest(m, model, consumers);
  removeOperationTests(m, model);
  addOperationTests(m, model);
  cycleTest(m, model);
  ourIndexTests(m, model);
  preparationTests(m);
}

std::vector<ModelMutation> mutateModel(const Model& model, Coverage coverage) {
  std::vector<ModelMutation> out;
  forEachModelMutation(model, coverage, [&](const ModelMutation& mutation) { out.push_back(mutation); });
  return out;
}

const std::vector<std::string>& modelMutationKinds() {
  static const std::vector<std::string> kinds = {
      "mutateExecutionOrderTest",       "mutateOperandTypeTest",
      "mutateOperandRankTest",          "mutateOperandScaleTest",
      "mutateOperandZeroPointTest",     "mutateOperandLifeTimeTest",
      "mutateOperandInputOutputTest",   "mutateOperandAddWriterTest",
      "mutateOperationOperandTypeTest", "mutateOperationTypeTest",
      "mutateOperationInputOperandIndexTest", "mutateOperationOutputOperandIndexTest",
      "mutateOperationRemoveWriteTest", "removeOperandTest",
      "removeOperationTest",            "removeOperationInputTest",
      "removeOperationOutputTest",      "addOperationInputTest",
      "addOperationOutputTest",         "CycleTest",
      "mutateModelInputIndexTest",      "mutateModelOutputIndexTest",
      "mutateOperandLifeTimeValueTest", "mutateExecutionPreferenceTest",
      "mutateExecutionPriorityTest",
  };
  return kinds;
}

ModelMutation cycleTestModel() {
  // operand 0, 1: TENSOR_FLOAT32 {1} model inputs; 2: INT32 model input (activation)
  // 3 = ADD(0, 4, 2); 4 = ADD(1, 3, 2); 5 = ADD(4, 0, 2), the model output.
  ModelMutation mutation;
  mutation.kind = "CycleTest";
  mutation.name = "CycleTest: 3 = ADD(0, 4), 4 = ADD(1, 3), 5 = ADD(4, 0)";
  auto& g = mutation.model.main;
  auto tensor = [](LifeTime lifetime) {
    Operand operand;
    operand.type = OperandType::TENSOR_FLOAT32;
    operand.dimensions = {1};
    operand.lifetime = lifetime;
    return operand;
  };
  Operand activation;
  activation.type = OperandType::INT32;
  activation.lifetime = LifeTime::SUBGRAPH_INPUT;
  g.operands = {tensor(LifeTime::SUBGRAPH_INPUT),     tensor(LifeTime::SUBGRAPH_INPUT),
                activation,                           tensor(LifeTime::TEMPORARY_VARIABLE),
                tensor(LifeTime::TEMPORARY_VARIABLE), tensor(LifeTime::SUBGRAPH_OUTPUT)};
  g.operations = {{OperationType::ADD, {0, 4, 2}, {3}},
                  {OperationType::ADD, {1, 3, 2}, {4}},
                  {OperationType::ADD, {4, 0, 2}, {5}}};
  g.inputIndexes = {0, 1, 2};
  g.outputIndexes = {5};
  return mutation;
}

// ---- Requests ------------------------------------------------------------------------------------

void forEachRequestMutation(const Model& model, const hal::Request& request, Coverage coverage,
                            const std::function<void(const RequestMutation&)>& visit) {
  using Argument = hal::Request::Argument;
  Mutator<RequestMutation, hal::Request> m(request, coverage, visit);
  // VTS's removeInput and removeOutput: one argument fewer than the model has.
  m.begin("removeInputTest");
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    m.place("removed input " + str(i), [i](RequestMutation& mu) {
      mu.request.inputs.erase(mu.request.inputs.begin() + static_cast<long>(i));
    });
  }
  m.end();
  m.begin("removeOutputTest");
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    m.place("removed output " + str(i), [i](RequestMutation& mu) {
      mu.request.outputs.erase(mu.request.outputs.begin() + static_cast<long>(i));
    });
  }
  m.end();
  // Ours: a POOL argument in a pool that does not exist.
  const uint32_t badPool = static_cast<uint32_t>(request.pools.size());
  m.begin("mutateInputPoolIndexTest");
  for (size_t i = 0; i < request.inputs.size(); ++i) {
    if (request.inputs[i].lifetime != Argument::LifeTime::POOL) continue;
    m.place("input " + str(i) + " in pool " + str(badPool), [i, badPool](RequestMutation& mu) {
      mu.request.inputs[i].location.poolIndex = badPool;
    });
  }
  m.end();
  m.begin("mutateOutputPoolIndexTest");
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    if (request.outputs[i].lifetime != Argument::LifeTime::POOL) continue;
    m.place("output " + str(i) + " in pool " + str(badPool), [i, badPool](RequestMutation& mu) {
      mu.request.outputs[i].location.poolIndex = badPool;
    });
  }
  m.end();
  // Ours: a fully specified input one byte short of its data.
  m.begin("mutateInputLengthTest");
  for (size_t i = 0; i < request.inputs.size() && i < model.main.inputIndexes.size(); ++i) {
    const auto& operand = model.main.operands[model.main.inputIndexes[i]];
    const Argument& argument = request.inputs[i];
    if (argument.lifetime != Argument::LifeTime::POOL || argument.location.length == 0 ||
        hal::hasUnspecifiedDimensions(operand) || !argument.dimensions.empty()) {
      continue;
    }
    m.place("input " + str(i) + " one byte short", [i](RequestMutation& mu) { mu.request.inputs[i].location.length -= 1; });
  }
  m.end();
  // Ours: one argument more than the model has.
  m.begin("addInputTest");
  m.place("one more input", [](RequestMutation& mu) {
    mu.request.inputs.push_back(mu.request.inputs.empty() ? Argument{} : mu.request.inputs.back());
  });
  m.end();
  m.begin("addOutputTest");
  m.place("one more output", [](RequestMutation& mu) {
    mu.request.outputs.push_back(mu.request.outputs.empty() ? Argument{} : mu.request.outputs.back());
  });
  m.end();
}

std::vector<RequestMutation> mutateRequest(const Model& model, const hal::Request& request, Coverage coverage) {
  std::vector<RequestMutation> out;
  forEachRequestMutation(model, request, coverage, [&](const RequestMutation& mutation) { out.push_back(mutation); });
  return out;
}

const std::vector<std::string>& requestMutationKinds() {
  static const std::vector<std::string> kinds = {
      "removeInputTest",       "removeOutputTest",      "mutateInputPoolIndexTest", "mutateOutputPoolIndexTest",
      "mutateInputLengthTest", "addInputTest",          "addOutputTest",
  };
  return kinds;
}

}  // namespace nnremote::conformance
