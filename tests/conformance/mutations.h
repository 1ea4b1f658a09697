// Invalid models and requests made from valid ones, after Android's VTS ValidateModel.cpp and
// ValidateRequest.cpp (neuralnetworks/1.3 and aidl vts/functional): every model mutation kind VTS
// has, with VTS's own skip rules (mutateOperationOperandTypeSkip, removeOperandSkip,
// removeOperationInputSkip, addOperationInputSkip), so that every mutation made is invalid by
// Android's rules, plus a few of our own. Each mutation carries its kind, VTS's test name (e.g.
// "mutateOperationOperandTypeTest"), and a name that says where it was applied.
//
// Where we depart from VTS (each explained where it is done, in mutations.cc):
// mutateOperationOperandTypeTest gives TENSOR_QUANT8_ASYMM_SIGNED valid quantization and resizes
// a constant's data to its new type, so that only the operation's signature is wrong (and skips
// the CONV_2D/DEPTHWISE_CONV_2D input whose INT32/BOOL type selects the form); removeOperandTest
// renumbers the later operands (VTS means to but does not) and so also skips operands whose
// removal leaves a valid operation form; mutateOperandScaleTest and mutateOperandZeroPointTest
// add values for TENSOR_QUANT8_ASYMM_SIGNED and a negative quantized scale.
//
// VTS kinds that have no counterpart here: mutateOperandNumberOfConsumersTest (HAL 1.0-1.3 only;
// our operands carry no consumer count). VTS's request tests beyond removeInput/removeOutput are
// the burst's memory-slot checks, which have no counterpart in hal::Request.
#ifndef NNREMOTE_TESTS_CONFORMANCE_MUTATIONS_H_
#define NNREMOTE_TESTS_CONFORMANCE_MUTATIONS_H_

#include <functional>
#include <string>
#include <vector>

#include "hal/types.h"

namespace nnremote::conformance {

// Where each kind is applied.
enum class Coverage {
  // The first and the last place each kind fits (an operand, an operation, an (operand, type)
  // pair...): a run over all conformance models within minutes, for CI.
  kSample,
  // Every place, as VTS does.
  kAll,
};

struct ModelMutation {
  std::string kind;  // VTS's test name, e.g. "mutateOperandTypeTest"
  std::string name;  // kind and place, e.g. "mutateOperandTypeTest: operand 3 set to value -1"
  hal::Model model;
  // Most mutations change the model. These change how it is prepared instead.
  hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  hal::Priority priority = hal::Priority::MEDIUM;
};

struct RequestMutation {
  std::string kind;  // e.g. "removeInputTest"
  std::string name;
  hal::Request request;
};

// Calls `visit` with each invalid model made from `model`, one at a time (only one mutated copy
// of the model exists at once, whatever the coverage).
void forEachModelMutation(const hal::Model& model, Coverage coverage,
                          const std::function<void(const ModelMutation&)>& visit);

// The same, collected.
std::vector<ModelMutation> mutateModel(const hal::Model& model, Coverage coverage = Coverage::kSample);

// The invalid requests made from `request`, a valid request for `model`.
void forEachRequestMutation(const hal::Model& model, const hal::Request& request, Coverage coverage,
                            const std::function<void(const RequestMutation&)>& visit);
std::vector<RequestMutation> mutateRequest(const hal::Model& model, const hal::Request& request,
                                           Coverage coverage = Coverage::kSample);

// VTS's CycleTest (BasicTests.cpp): three ADDs of which the first two read each other's output,
// so that no execution order exists. Kind "CycleTest".
ModelMutation cycleTestModel();

// Every model and request mutation kind, in the order they are made (for reports).
const std::vector<std::string>& modelMutationKinds();
const std::vector<std::string>& requestMutationKinds();

}  // namespace nnremote::conformance

#endif  // NNREMOTE_TESTS_CONFORMANCE_MUTATIONS_H_
