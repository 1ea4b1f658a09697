// Validation of models and requests against the NN HAL rules (after AOSP's Validation.cpp).
// Every rejection is INVALID_ARGUMENT with a message that names the offending field, e.g.
// "main.operations[3].inputs[1] = 57 is out of range (model has 12 operands)".
//
// validateModel checks the model's structure and every operation's signature (its operand
// counts, types and parameter kinds: hal/operation_signatures.h), the same for the client, the
// server and every backend. What is left to a device is whether it supports a valid operation.
#ifndef NNREMOTE_HAL_VALIDATION_H_
#define NNREMOTE_HAL_VALIDATION_H_

#include "hal/i_execution.h"
#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::hal {

// Maximum nesting of referenced subgraphs followed when checking for cycles.
constexpr size_t kMaxSubgraphs = 1u << 16;

// Checks operands (types, dimensions, quantization, lifetimes and data locations against the
// operand values and pools), operations (indexes, execution order: read before write, written
// twice, never written), subgraph inputs and outputs, and cycles among referenced subgraphs.
// `allowPointers` accepts POINTER lifetimes, which only an in-process device can use.
Status validateModel(const Model& model, bool allowPointers = true);

// What a model that passed validateModel needs of a device: the lowest feature level that
// defines every operation form (hal/operation_signatures.h), operand type and model feature it
// uses. A device of a lower feature level refuses the model (the server checks, for every device).
Version minimumFeatureLevel(const Model& model);
// Refuses (INVALID_ARGUMENT) a model that needs a later feature level than `deviceLevel`, naming
// both; how a 1.0 device refuses a 1.3-only signature.
Status validateModelForFeatureLevel(const Model& model, Version deviceLevel, const std::string& deviceName);
// The feature level each of main's operations needs, with what it takes from the model (relaxed
// computation) and, for IF and WHILE, from the subgraphs they run.
std::vector<Version> operationFeatureLevels(const Model& model);

// Checks a request against a model that passed validateModel: argument counts, pools and their
// bounds, and argument dimensions against the model's operand dimensions.
Status validateRequestForModel(const Request& request, const Model& model,
                               bool allowPointers = true);

// Checks the output shapes a device answered an execution with, by AOSP's rules for a driver's
// answer: on success, none or one per output, each sufficient, and a tensor's with its
// dimensions; with OUTPUT_INSUFFICIENT_SIZE, one per output and at least one not sufficient. With
// any other error the shapes mean nothing and are not checked. `outputs` are the execution's
// outputs as indexes into `operands`. A broken answer is the device's failure: GENERAL_FAILURE.
Status validateExecutionOutcome(const Result<ExecutionOutcome>& outcome, const std::vector<Operand>& operands,
                                const std::vector<uint32_t>& outputs);

// The operand a memory-domain buffer stands for: what all its roles agree on.
struct BufferOperand {
  OperandType type = OperandType::TENSOR_FLOAT32;
  float scale = 0.0f;
  int32_t zeroPoint = 0;
  Operand::ExtraParams extraParams;
  std::vector<uint32_t> dimensions;  // 0 (or an empty list) where still unknown
};

// Checks the roles of IDevice::allocate, as the VTS MemoryDomain tests do: at least one role;
// each names one of `models` and an input/output it has; probabilities in (0, 1]; no role
// twice; and every role's operand, and `desc`, agree on type, scale, zero point, rank and
// dimensions. `models[i]` is the model prepared as preparedModels[i] (null if that is invalid).
Result<BufferOperand> validateBufferRoles(const BufferDesc& desc, const std::vector<const Model*>& models,
                                          const std::vector<BufferRole>& inputRoles,
                                          const std::vector<BufferRole>& outputRoles);

// Merges two dimension lists where 0 means unknown; fails if they disagree.
Result<std::vector<uint32_t>> combineDimensions(const std::vector<uint32_t>& a,
                                                const std::vector<uint32_t>& b);

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_VALIDATION_H_
