// Small models with control flow (IF, WHILE), shared by the HAL conformance suite and the
// timing tests.
#ifndef NNREMOTE_TESTS_COMMON_CONTROL_FLOW_MODELS_H_
#define NNREMOTE_TESTS_COMMON_CONTROL_FLOW_MODELS_H_

#include "hal/types.h"

namespace nnremote::testing {

// x + addend, float32 [1].
hal::Model addConstantModel(float addend);

// IF (condition) then x + 1 else x - 1; inputs condition (TENSOR_BOOL8 [1]) and x.
hal::Model ifModel();

// IF (condition) then `thenBranch` else `elseBranch`, both float32 [1] -> float32 [1].
hal::Model ifModel(const hal::Model& thenBranch, const hal::Model& elseBranch);

// WHILE (i < limit) { i = i + 1; sum = sum + i }; inputs i, sum, limit; outputs i and sum.
hal::Model whileModel();

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_COMMON_CONTROL_FLOW_MODELS_H_
