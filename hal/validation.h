// Structural validation of models and requests against the NN HAL rules (after AOSP's
// Validation.cpp). Every rejection is INVALID_ARGUMENT with a message that names the offending
// field, e.g. "main.operations[3].inputs[1] = 57 is out of range (model has 12 operands)".
//
// What an operation means (its operand count, types and parameters) is the device's business and
// is checked by the device when it prepares the model; this file checks what every model must
// satisfy.
#ifndef NNREMOTE_HAL_VALIDATION_H_
#define NNREMOTE_HAL_VALIDATION_H_

#include "hal/types.h"

namespace nnremote::hal {

// Maximum nesting of referenced subgraphs followed when checking for cycles.
constexpr size_t kMaxSubgraphs = 1u << 16;

// Checks operands (types, dimensions, quantization, lifetimes and data locations against the
// operand values and pools), operations (indexes, execution order: read before write, written
// twice, never written), subgraph inputs and outputs, and cycles among referenced subgraphs.
// `allowPointers` accepts POINTER lifetimes, which only an in-process device can use.
Status validateModel(const Model& model, bool allowPointers = true);

// Checks a request against a model that passed validateModel: argument counts, pools and their
// bounds, and argument dimensions against the model's operand dimensions.
Status validateRequestForModel(const Request& request, const Model& model,
                               bool allowPointers = true);

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_VALIDATION_H_
