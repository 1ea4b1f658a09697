// What a kernel sees of one operation: its input and output tensors, with data where known.
//
// The same context serves three phases. At validation (getSupportedOperations, prepareModel)
// only constant operands have data; kernels check types, counts and constant parameters. At
// execution, `prepare` computes output shapes from the input shapes, the executor allocates the
// outputs, and `execute` fills them.
#ifndef NNREMOTE_DRIVERS_SIM_OPERATION_CONTEXT_H_
#define NNREMOTE_DRIVERS_SIM_OPERATION_CONTEXT_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hal/operand_types.h"
#include "hal/types.h"

namespace nnremote::sim {

using hal::OperandType;
using hal::OperationType;
using hal::Status;

struct Tensor {
  OperandType type = OperandType::FLOAT32;
  std::vector<uint32_t> dimensions;
  float scale = 0.0f;
  int32_t zeroPoint = 0;
  const hal::Operand::ExtraParams* extraParams = nullptr;
  bool isConstant = false;
  bool isOmitted = false;  // NO_VALUE
  int32_t subgraph = -1;   // for SUBGRAPH operands: the referenced subgraph's index
  // Null when the value is not known yet (validation of a non-constant operand).
  uint8_t* data = nullptr;
  size_t length = 0;
  // Bytes per element: the HAL's size for built-in types, the extension's byteSize for an
  // extension type (0 for one the model's extensions do not declare).
  uint32_t elementBytes = 0;

  uint32_t rank() const { return static_cast<uint32_t>(dimensions.size()); }
  uint32_t dim(size_t i) const { return dimensions[i]; }
  uint64_t elementCount() const { return hal::elementCount(dimensions); }
  // The bytes of the whole tensor; std::nullopt beyond 4 GiB.
  std::optional<uint32_t> byteSize() const {
    const uint64_t count = elementCount();
    if (elementBytes != 0 && count > UINT32_MAX / elementBytes) return std::nullopt;
    return static_cast<uint32_t>(count * elementBytes);
  }
  template <typename T>
  const T* as() const { return reinterpret_cast<const T*>(data); }
  template <typename T>
  T* asMutable() const { return reinterpret_cast<T*>(data); }
};

// What one operation of a prepared model keeps between executions: weights packed for a
// library, a compiled operator. Executions of one prepared model may run concurrently, so a
// kernel holds `mutex` while it reads, builds or uses `value`.
struct OperationState {
  std::mutex mutex;
  std::shared_ptr<void> value;
};

class OperationContext {
 public:
  OperationContext(OperationType type, std::vector<Tensor*> inputs, std::vector<Tensor*> outputs)
      : type_(type), inputs_(std::move(inputs)), outputs_(std::move(outputs)) {}

  OperationType type() const { return type_; }
  // This operation's state in its prepared model; null outside an execution (validation) and
  // for executions that keep none.
  OperationState* state() const { return state_; }
  void setState(OperationState* state) { state_ = state; }
  size_t inputCount() const { return inputs_.size(); }
  size_t outputCount() const { return outputs_.size(); }
  const Tensor& input(size_t i) const { return *inputs_[i]; }
  Tensor& output(size_t i) const { return *outputs_[i]; }

  OperandType inputType(size_t i) const { return inputs_[i]->type; }
  // Whether input i's value is known. Asking about a value not known yet (a non-constant input
  // at preparation) is remembered: such a check must be made again at execution.
  bool hasValue(size_t i) const {
    const Tensor& t = *inputs_[i];
    if (t.data == nullptr && !t.isOmitted) askedForUnknownValue_ = true;
    return t.data != nullptr && !t.isOmitted;
  }
  bool askedForUnknownValue() const { return askedForUnknownValue_; }

  // Reads a scalar input. The caller has checked hasValue(i) and the type.
  template <typename T>
  T scalar(size_t i) const {
    T value;
    std::memcpy(&value, inputs_[i]->data, sizeof(T));
    return value;
  }

 private:
  OperationType type_;
  std::vector<Tensor*> inputs_;
  std::vector<Tensor*> outputs_;
  OperationState* state_ = nullptr;
  mutable bool askedForUnknownValue_ = false;
};

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_OPERATION_CONTEXT_H_
