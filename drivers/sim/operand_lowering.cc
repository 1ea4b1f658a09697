#include "drivers/sim/operand_lowering.h"

#include <cstring>

#include "hal/float16.h"

namespace nnremote::sim {
namespace {

// Operations whose signed form is not the unsigned one shifted by 128 (NNAPI spec), and
// QUANTIZED_LSTM, which NNAPI defines on signed values only.
bool signedDiffers(OperationType type) {
  switch (type) {
    case OperationType::CAST:
    case OperationType::HASHTABLE_LOOKUP:
    case OperationType::LSH_PROJECTION:
    case OperationType::PAD_V2:
    case OperationType::QUANTIZED_16BIT_LSTM:
    case OperationType::QUANTIZED_LSTM:
      return true;
    default:
      return false;
  }
}

// LSH_PROJECTION hashes the raw bytes of its input, so its float16 operands stay float16.
bool hashesRawBytes(OperationType type) { return type == OperationType::LSH_PROJECTION; }

bool isHalf(OperandType type) {
  return type == OperandType::TENSOR_FLOAT16 || type == OperandType::FLOAT16;
}

OperandType floatTypeFor(OperandType type) {
  return type == OperandType::FLOAT16 ? OperandType::FLOAT32 : OperandType::TENSOR_FLOAT32;
}

// NCHW <-> NHWC for a 4-D tensor of `elementSize`-byte elements.
void transpose4d(const uint8_t* from, uint8_t* to, const std::vector<uint32_t>& fromDims,
                 const uint32_t permutation[4], size_t elementSize) {
  const uint32_t toDims[4] = {fromDims[permutation[0]], fromDims[permutation[1]],
                              fromDims[permutation[2]], fromDims[permutation[3]]};
  size_t fromStrides[4];
  fromStrides[3] = elementSize;
  for (int d = 2; d >= 0; --d) fromStrides[d] = fromStrides[d + 1] * fromDims[d + 1];
  size_t out = 0;
  for (uint32_t a = 0; a < toDims[0]; ++a)
    for (uint32_t b = 0; b < toDims[1]; ++b)
      for (uint32_t c = 0; c < toDims[2]; ++c)
        for (uint32_t d = 0; d < toDims[3]; ++d) {
          const uint32_t index[4] = {a, b, c, d};
          size_t in = 0;
          for (int k = 0; k < 4; ++k) in += index[k] * fromStrides[permutation[k]];
          std::memcpy(to + out, from + in, elementSize);
          out += elementSize;
        }
}

constexpr uint32_t kNchwToNhwc[4] = {0, 2, 3, 1};
constexpr uint32_t kNhwcToNchw[4] = {0, 3, 1, 2};

std::vector<uint32_t> permute(const std::vector<uint32_t>& dims, const uint32_t permutation[4]) {
  if (dims.size() != 4) return dims;
  return {dims[permutation[0]], dims[permutation[1]], dims[permutation[2]], dims[permutation[3]]};
}

}  // namespace

LoweredOperation::LoweredOperation(const OperationKernel& kernel, OperationContext& original)
    : kernel_(kernel), original_(original) {
  auto anyOperand = [&](auto predicate) {
    for (size_t i = 0; i < original.inputCount(); ++i) {
      if (predicate(original.input(i))) return true;
    }
    for (size_t i = 0; i < original.outputCount(); ++i) {
      if (predicate(original.output(i))) return true;
    }
    return false;
  };
  toFloat32_ = !hashesRawBytes(original.type()) && anyOperand([](const Tensor& t) { return isHalf(t.type); });
  toUnsigned_ = !signedDiffers(original.type()) &&
                anyOperand([](const Tensor& t) { return t.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED; });
  if (kernel.layoutOperand != nullptr) {
    const int index = kernel.layoutOperand(original);
    if (index >= 0 && static_cast<size_t>(index) < original.inputCount() &&
        original.inputType(index) == OperandType::BOOL && original.hasValue(index) &&
        original.scalar<uint8_t>(index) != 0 && original.input(0).rank() == 4) {
      toNhwc_ = true;
      layoutOperand_ = index;
      if (kernel.layoutShapeOperand != nullptr) layoutShapeOperand_ = kernel.layoutShapeOperand(original);
    }
  }
  if (!toFloat32_ && !toUnsigned_ && !toNhwc_) return;

  inputs_.resize(original.inputCount());
  inputData_.resize(original.inputCount());
  outputs_.resize(original.outputCount());
  outputData_.resize(original.outputCount());
  std::vector<Tensor*> inputs, outputs;
  for (size_t i = 0; i < original.inputCount(); ++i) {
    lowerInput(i);
    inputs.push_back(&inputs_[i]);
  }
  for (size_t i = 0; i < original.outputCount(); ++i) {
    lowerOutput(i);
    outputs.push_back(&outputs_[i]);
  }
  lowered_ = std::make_unique<OperationContext>(original.type(), std::move(inputs), std::move(outputs));
  lowered_->setState(original.state());
}

void LoweredOperation::lowerInput(size_t i) {
  const Tensor& from = original_.input(i);
  Tensor& to = inputs_[i];
  to = from;
  if (static_cast<int>(i) == layoutOperand_) {
    to.data = &nhwcFlag_;  // the lowered operation is NHWC
    return;
  }
  if (static_cast<int>(i) == layoutShapeOperand_ && from.data != nullptr && from.elementCount() == 4) {
    int32_t nchw[4];
    std::memcpy(nchw, from.data, sizeof(nchw));  // a shape, read without assuming alignment
    const int32_t nhwc[4] = {nchw[0], nchw[2], nchw[3], nchw[1]};
    inputData_[i].assign(reinterpret_cast<const uint8_t*>(nhwc), reinterpret_cast<const uint8_t*>(nhwc) + sizeof(nhwc));
    to.data = inputData_[i].data();
    return;
  }
  const bool half = toFloat32_ && isHalf(from.type);
  const bool signedQuant = toUnsigned_ && from.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const bool transposed = toNhwc_ && i == 0;
  if (half) to.type = floatTypeFor(from.type);
  if (signedQuant) {
    to.type = OperandType::TENSOR_QUANT8_ASYMM;
    to.zeroPoint = from.zeroPoint + 128;
  }
  if (transposed) to.dimensions = permute(from.dimensions, kNchwToNhwc);
  if (from.data == nullptr || from.isOmitted || !(half || signedQuant || transposed)) return;

  const size_t count = hal::isTensor(from.type) ? from.elementCount() : 1;
  std::vector<uint8_t> converted;
  if (half) {
    converted.resize(count * sizeof(float));
    float* out = reinterpret_cast<float*>(converted.data());
    for (size_t k = 0; k < count; ++k) {
      uint16_t h;
      std::memcpy(&h, from.data + 2 * k, 2);
      out[k] = hal::halfToFloat(h);
    }
  } else {
    converted.assign(from.data, from.data + count * hal::elementSize(from.type));
    if (signedQuant) {
      for (uint8_t& b : converted) b ^= 0x80;  // int8 v -> uint8 v + 128
    }
  }
  if (transposed) {
    std::vector<uint8_t> nhwc(converted.size());
    transpose4d(converted.data(), nhwc.data(), from.dimensions, kNchwToNhwc, hal::elementSize(to.type));
    converted = std::move(nhwc);
  }
  inputData_[i] = std::move(converted);
  to.data = inputData_[i].data();
  to.length = inputData_[i].size();
}

void LoweredOperation::lowerOutput(size_t i) {
  const Tensor& from = original_.output(i);
  Tensor& to = outputs_[i];
  to = from;
  to.data = nullptr;
  if (toFloat32_ && isHalf(from.type)) to.type = floatTypeFor(from.type);
  if (toUnsigned_ && from.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED) {
    to.type = OperandType::TENSOR_QUANT8_ASYMM;
    to.zeroPoint = from.zeroPoint + 128;
  }
  if (toNhwc_ && i == 0) to.dimensions = permute(from.dimensions, kNchwToNhwc);
}

Status LoweredOperation::validate() {
  const OperationContext& c = context();
  for (size_t i = 0; i < c.inputCount(); ++i) {
    const Tensor& input = c.input(i);
    if (input.isOmitted && hal::isTensor(input.type) && (i == 0 || !kernel_.takesOmittedTensors)) {
      return hal::invalidArgument() << hal::toString(c.type()) << " input " << i
                                    << " is a tensor with no value (omitted), which this operation needs";
    }
  }
  return kernel_.validate(c);
}

Status LoweredOperation::prepare() {
  NN_RETURN_IF_ERROR(kernel_.prepare(context()));
  if (!lowered_) return {};
  for (size_t i = 0; i < outputs_.size(); ++i) {
    Tensor& original = original_.output(i);
    original.dimensions = toNhwc_ && i == 0 ? permute(outputs_[i].dimensions, kNhwcToNchw)
                                            : outputs_[i].dimensions;
  }
  return {};
}

Status LoweredOperation::execute() {
  if (!lowered_) return kernel_.execute(original_);
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const size_t bytes = outputs_[i].elementCount() * hal::elementSize(outputs_[i].type);
    outputData_[i].resize(bytes == 0 ? 1 : bytes);
    outputs_[i].data = outputData_[i].data();
    outputs_[i].length = bytes;
  }
  NN_RETURN_IF_ERROR(kernel_.execute(*lowered_));
  for (size_t i = 0; i < outputs_.size(); ++i) raiseOutput(i);
  return {};
}

void LoweredOperation::raiseOutput(size_t i) {
  const Tensor& from = outputs_[i];
  Tensor& to = original_.output(i);
  const size_t count = from.elementCount();
  std::vector<uint8_t> nhwcToNchw;
  const uint8_t* source = from.data;
  if (toNhwc_ && i == 0 && from.rank() == 4) {
    nhwcToNchw.resize(count * hal::elementSize(from.type));
    transpose4d(from.data, nhwcToNchw.data(), from.dimensions, kNhwcToNchw, hal::elementSize(from.type));
    source = nhwcToNchw.data();
  }
  if (isHalf(to.type) && !isHalf(from.type)) {
    const float* values = reinterpret_cast<const float*>(source);
    for (size_t k = 0; k < count; ++k) {
      const uint16_t h = hal::floatToHalf(values[k]);
      std::memcpy(to.data + 2 * k, &h, 2);
    }
    return;
  }
  const size_t bytes = count * hal::elementSize(to.type);
  if (bytes) std::memcpy(to.data, source, bytes);
  if (to.type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED && from.type == OperandType::TENSOR_QUANT8_ASYMM) {
    for (size_t k = 0; k < bytes; ++k) to.data[k] ^= 0x80;
  }
}

OperationWork LoweredOperation::work() { return kernel_.work(context()); }

}  // namespace nnremote::sim
