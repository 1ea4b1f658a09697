// What makes an operation valid, once for everyone: the input and output counts, the operand-type
// combinations with the feature level each needs, and the per-operand rules (rank, quantization,
// parameter kinds) of every NNAPI operation. validateModel applies it, so the client (proxy,
// NNAPI runtime), the server and every backend share one idea of "valid"; a backend decides only
// what it supports. After AOSP's per-operation validation (common/types/operations); our own code.
#ifndef NNREMOTE_HAL_OPERATION_SIGNATURES_H_
#define NNREMOTE_HAL_OPERATION_SIGNATURES_H_

#include <cstring>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "hal/types.h"

namespace nnremote::hal {

// What a signature check sees of one operation. Operand indexes are already known to be in range.
class OperationOperands {
 public:
  OperationOperands(const Model& model, const Model::Subgraph& subgraph, const Operation& operation)
      : model_(model), subgraph_(subgraph), operation_(operation) {}

  const Model& model() const { return model_; }
  const Model::Subgraph& subgraph() const { return subgraph_; }
  const Operation& operation() const { return operation_; }
  OperationType type() const { return operation_.type; }

  size_t inputCount() const { return operation_.inputs.size(); }
  size_t outputCount() const { return operation_.outputs.size(); }
  const Operand& input(size_t i) const { return subgraph_.operands[operation_.inputs[i]]; }
  const Operand& output(size_t i) const { return subgraph_.operands[operation_.outputs[i]]; }
  OperandType inputType(size_t i) const { return input(i).type; }
  OperandType outputType(size_t i) const { return output(i).type; }
  // The rank of a tensor operand; 0 where it is unknown (no dimensions given).
  uint32_t inputRank(size_t i) const { return static_cast<uint32_t>(input(i).dimensions.size()); }
  uint32_t outputRank(size_t i) const { return static_cast<uint32_t>(output(i).dimensions.size()); }
  // An optional input left out (lifetime NO_VALUE).
  bool isOmitted(size_t i) const { return input(i).lifetime == Operand::LifeTime::NO_VALUE; }
  bool relaxed() const { return model_.relaxComputationFloat32toFloat16; }

  // The bytes of a constant input (CONSTANT_COPY, CONSTANT_REFERENCE, POINTER), or nullptr for
  // any other lifetime. `length` receives the byte count.
  const uint8_t* constantData(size_t i, size_t* length) const;
  // A constant scalar input's value, or std::nullopt where the model does not fix it.
  template <typename T>
  std::optional<T> constantScalar(size_t i) const {
    size_t length = 0;
    const uint8_t* data = constantData(i, &length);
    if (data == nullptr || length < sizeof(T)) return std::nullopt;
    T value;
    std::memcpy(&value, data, sizeof(T));
    return value;
  }

 private:
  const Model& model_;
  const Model::Subgraph& subgraph_;
  const Operation& operation_;
};

// Checks one operation's signature. Returns the lowest feature level that defines this form of
// the operation, or INVALID_ARGUMENT with a message naming the input or output and the rule,
// e.g. "input 7 must be BOOL (layout) with 8 inputs, got INT32".
using OperationValidator = Result<Version> (*)(const OperationOperands& operands);

struct OperationSignature {
  OperationType type;
  OperationValidator validate;
};

// Checks `operation` (of `subgraph`, named `where` in messages, e.g. "main.operations[4]") against
// its signature. Extension and OEM operations are the device's to check and pass here with the
// feature level at which they were introduced. Messages read
// "main.operations[4] CONV_2D: input 7 must be BOOL (layout) with 8 inputs, got INT32".
Result<Version> validateOperationSignature(const Model& model, const Model::Subgraph& subgraph,
                                           const Operation& operation, const std::string& where);

// Whether every built-in operation type has exactly one signature (checked by the tests).
std::vector<OperationType> operationTypesWithoutSignature();

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_OPERATION_SIGNATURES_H_
