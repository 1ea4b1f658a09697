// The smallest useful model: out = a + b over two float32 [2] inputs, for tests that need any
// model at all (server robustness, quotas).
#ifndef NNREMOTE_TESTING_ADD_MODEL_H_
#define NNREMOTE_TESTING_ADD_MODEL_H_

#include "hal/model_builder.h"

namespace nnremote::testing {

inline hal::Model twoInputAddModel() {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t c = b.addInput(hal::OperandType::TENSOR_FLOAT32, {2});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {2});
  b.addOperation(hal::OperationType::ADD, {a, c, b.addInt32(0)}, {out});
  return b.build();
}

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTING_ADD_MODEL_H_
