// The smallest useful model: out = a + b over two float32 [2] inputs, for tests that need any
// model at all (server robustness, quotas); and its twin with another elementwise operation, for
// tests that need a second model a fault plan can tell apart (segfault:op=MUL).
#ifndef NNREMOTE_TESTING_ADD_MODEL_H_
#define NNREMOTE_TESTING_ADD_MODEL_H_

#include "hal/model_builder.h"

namespace nnremote::testing {

// `operation`: ADD, MUL, SUB or DIV, which take the same operands.
inline hal::Model twoInputModel(hal::OperationType operation) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t c = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {2});
  b.addOperation(operation, {a, c, b.addInt32(0)}, {out});
  return b.build();
}

inline hal::Model twoInputAddModel() { return twoInputModel(hal::OperationType::ADD); }

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTING_ADD_MODEL_H_
