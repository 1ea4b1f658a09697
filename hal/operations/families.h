// The operation families whose signatures make up the table (hal/operation_signatures.h). Each
// family file lists its operations once; a new operation is one entry in its family's list.
#ifndef NNREMOTE_HAL_OPERATIONS_FAMILIES_H_
#define NNREMOTE_HAL_OPERATIONS_FAMILIES_H_

#include <vector>

#include "hal/operation_signatures.h"

namespace nnremote::hal::signatures {

// Element-wise arithmetic, comparisons, logic, activations, casts and (de)quantization.
std::vector<OperationSignature> elementwiseSignatures();
// Convolutions, pooling, fully connected, batch matmul, softmax, normalizations, resizing.
std::vector<OperationSignature> convolutionSignatures();
// Shapes and data movement: reshape, concat, slices, pads, gathers, reductions, arg/top-k.
std::vector<OperationSignature> shapeSignatures();
// Recurrent networks (LSTM, RNN, SVDF and their sequence and quantized forms).
std::vector<OperationSignature> recurrentSignatures();
// Lookups, hashing, random sampling, detection and region-of-interest operations, control flow.
std::vector<OperationSignature> detectionSignatures();

}  // namespace nnremote::hal::signatures

#endif  // NNREMOTE_HAL_OPERATIONS_FAMILIES_H_
