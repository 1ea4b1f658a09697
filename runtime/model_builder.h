// The model-building half of the NNAPI C API: every ANeuralNetworksModel_* function, with the NDK's
// result codes and rules (after AOSP's runtime ModelBuilder), producing one canonical hal::Model.
// The extern "C" glue casts ANeuralNetworksModel* to ModelBuilder* and checks the model pointer;
// the methods check their other pointer arguments themselves (ANEURALNETWORKS_UNEXPECTED_NULL).
//
// What the rules come from: hal's validation (hal/validation.h, hal/operation_signatures.h) for
// operands, operation signatures and, at finish(), the whole model; the NDK's own rules (call
// order, lengths, who owns what) here. Not thread-safe, as the NDK says of a model.
#ifndef NNREMOTE_RUNTIME_MODEL_BUILDER_H_
#define NNREMOTE_RUNTIME_MODEL_BUILDER_H_

#include <android/NeuralNetworks.h>
#include <android/NeuralNetworksExtensions.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hal/types.h"

namespace nnremote::runtime {

class ModelBuilder {
 public:
  ModelBuilder() = default;
  ModelBuilder(const ModelBuilder&) = delete;
  ModelBuilder& operator=(const ModelBuilder&) = delete;

  // Each returns ANEURALNETWORKS_NO_ERROR, or BAD_STATE once finish() has succeeded or found the
  // model invalid, BAD_DATA for an invalid argument, UNEXPECTED_NULL for a missing pointer.
  int addOperand(const ANeuralNetworksOperandType* type);
  // buffer NULL with length 0 leaves the operand out (NO_VALUE). Values of at most
  // ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES bytes are copied now; larger buffers are
  // read at finish(), so the application may still change them until then.
  int setOperandValue(int32_t index, const void* buffer, size_t length);
  // The model holds `memory` (a CONSTANT_REFERENCE pool; one pool per memory however often used).
  int setOperandValueFromMemory(int32_t index, const hal::SharedMemory& memory, size_t offset, size_t length);
  // `value` must be finished (BAD_STATE otherwise) and outlive this model.
  int setOperandValueFromModel(int32_t index, const ModelBuilder* value);
  int setOperandSymmPerChannelQuantParams(int32_t index, const ANeuralNetworksSymmPerChannelQuantParams* channelQuant);
  int setOperandExtensionData(int32_t index, const void* data, size_t length);
  // Checks the operation's signature now (hal::validateOperationSignature; for IF and WHILE also
  // the subgraphs they call), against the operands as they are at this call.
  int addOperation(ANeuralNetworksOperationType type, uint32_t inputCount, const uint32_t* inputs,
                   uint32_t outputCount, const uint32_t* outputs);
  int identifyInputsAndOutputs(uint32_t inputCount, const uint32_t* inputs, uint32_t outputCount,
                               const uint32_t* outputs);
  int relaxComputationFloat32toFloat16(bool allow);

  // (prefix << 16) | code, where an extension's prefix is fixed for the life of the process (as in
  // AOSP's TypeManager), so models that reference each other agree on it. Allowed after finish().
  int getExtensionOperandType(const char* extensionName, uint16_t operandCodeWithinExtension, int32_t* type);
  int getExtensionOperationType(const char* extensionName, uint16_t operationCodeWithinExtension,
                                ANeuralNetworksOperationType* type);

  // Sorts the operations into an execution order, builds the complete model and validates it
  // (hal::validateModel). BAD_DATA leaves the model invalid for good; a second call is BAD_STATE.
  int finish();
  // True after a successful finish(): the model can be compiled and referenced.
  bool isFinished() const { return finished_.has_value(); }

  // The complete model, after a successful finish(): main is this model, `referenced` every model
  // reachable through SUBGRAPH operands, each once (a SUBGRAPH operand's location.offset is its
  // index there). Holds no POINTER lifetimes, so it can cross a process boundary.
  hal::Result<hal::Model> model() const;
  // operationOrder()[i] is the index, in the order of addOperation calls, of the operation that
  // finish() placed at main.operations[i] (ANeuralNetworksModel_getSupportedOperationsForDevices
  // answers in the order of addOperation calls).
  const std::vector<uint32_t>& operationOrder() const { return operationOrder_; }

  // Why the last refused call was refused (also logged under NNREMOTE_VLOG=runtime).
  const std::string& lastError() const { return lastError_; }

 private:
  class Flattener;

  int refuse(const char* function, int code, const std::string& why);
  // BAD_STATE if the model may no longer change; `function` names the call in the message.
  int checkMutable(const char* function);
  int checkIndex(const char* function, int32_t index);
  int checkValueLength(const char* function, uint32_t index, size_t length);
  int getExtensionType(const char* function, const char* extensionName, uint16_t code, int32_t* type);
  int moveLargeValuesIntoPool();
  bool sortOperations(std::string* why);

  // The model so far, as hal sees it while it is built, so hal's checks read it in place: main,
  // the operand values copied so far (operandValues), the memories (pools), and copies of the
  // main subgraphs of referenced models (referenced, for IF and WHILE checks). Values too large to
  // copy have lifetime POINTER (the application's buffer) until finish() moves them into a pool.
  hal::Model draft_;
  // SUBGRAPH operands' location.offset index this (and draft_.referenced) until finish().
  std::vector<const ModelBuilder*> referencedModels_;
  std::vector<uint32_t> operationOrder_;
  std::optional<hal::Model> finished_;
  bool invalid_ = false;  // finish() refused the model
  std::string lastError_;
};

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_MODEL_BUILDER_H_
