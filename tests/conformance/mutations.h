// Invalid models and requests made from valid ones, after VTS's ValidateModel and
// ValidateRequest (mutateOperandTypeTest, mutateOperationInputOperandIndexTest, removeInputTest,
// ...). Each mutation is invalid by construction, whatever the operations are. VTS keeps a
// mutation only when no operation could still accept it; here the kinds whose result depends on
// an operation's signature (adding or removing an operation's input, changing a tensor's rank or
// an input's type) are left out for that reason.
#ifndef NNREMOTE_TESTS_CONFORMANCE_MUTATIONS_H_
#define NNREMOTE_TESTS_CONFORMANCE_MUTATIONS_H_

#include <string>
#include <vector>

#include "hal/types.h"

namespace nnremote::cts {

struct ModelMutation {
  std::string name;  // e.g. "mutateOperandTypeTest operand 3"
  hal::Model model;
  // Most mutations change the model. These change how it is prepared instead.
  hal::ExecutionPreference preference = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  hal::Priority priority = hal::Priority::MEDIUM;
};

struct RequestMutation {
  std::string name;
  hal::Request request;
};

// The invalid models made from `model`: for each kind, applied to the first and the last
// operand or operation it fits (VTS applies every kind everywhere; two places per kind keep a
// run over all conformance models within seconds).
std::vector<ModelMutation> mutateModel(const hal::Model& model);

// The invalid requests made from `request`, a valid request for `model`.
std::vector<RequestMutation> mutateRequest(const hal::Model& model, const hal::Request& request);

}  // namespace nnremote::cts

#endif  // NNREMOTE_TESTS_CONFORMANCE_MUTATIONS_H_
