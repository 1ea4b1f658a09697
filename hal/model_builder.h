// Builds hal::Models and Requests in code, for tools, samples and tests.
//
//   ModelBuilder b;
//   uint32_t x = b.addInput(OperandType::TENSOR_FLOAT32, {2});
//   uint32_t y = b.addInput(OperandType::TENSOR_FLOAT32, {2});
//   uint32_t sum = b.addOutput(OperandType::TENSOR_FLOAT32, {2});
//   b.addOperation(OperationType::ADD, {x, y, b.addInt32(0)}, {sum});
//   Model model = b.build();
#ifndef NNREMOTE_HAL_MODEL_BUILDER_H_
#define NNREMOTE_HAL_MODEL_BUILDER_H_

#include <cstring>
#include <vector>

#include "hal/types.h"

namespace nnremote::hal {

class ModelBuilder {
 public:
  // A subgraph input; inputs are numbered in the order they are added.
  uint32_t addInput(OperandType type, std::vector<uint32_t> dimensions, float scale = 0.0f,
                    int32_t zeroPoint = 0);
  // A subgraph output; outputs are numbered in the order they are added.
  uint32_t addOutput(OperandType type, std::vector<uint32_t> dimensions, float scale = 0.0f,
                     int32_t zeroPoint = 0);
  uint32_t addTemporary(OperandType type, std::vector<uint32_t> dimensions, float scale = 0.0f,
                        int32_t zeroPoint = 0);
  // A CONSTANT_COPY operand holding `bytes`.
  uint32_t addConstant(OperandType type, std::vector<uint32_t> dimensions, const void* bytes,
                       size_t length, float scale = 0.0f, int32_t zeroPoint = 0);
  template <typename T>
  uint32_t addConstant(OperandType type, std::vector<uint32_t> dimensions,
                       const std::vector<T>& values, float scale = 0.0f, int32_t zeroPoint = 0) {
    return addConstant(type, std::move(dimensions), values.data(), values.size() * sizeof(T),
                       scale, zeroPoint);
  }
  uint32_t addInt32(int32_t value) { return addConstant(OperandType::INT32, {}, &value, 4); }
  uint32_t addFloat32(float value) { return addConstant(OperandType::FLOAT32, {}, &value, 4); }
  uint32_t addBool(bool value) {
    const uint8_t byte = value ? 1 : 0;
    return addConstant(OperandType::BOOL, {}, &byte, 1);
  }
  uint32_t addNoValue(OperandType type);
  // A SUBGRAPH operand (for IF and WHILE) naming `callee`'s main subgraph, which is appended to
  // model.referenced along with the callee's own referenced subgraphs and constants. The callee
  // may not use memory pools.
  uint32_t addSubgraph(const Model& callee);

  void addOperation(OperationType type, std::vector<uint32_t> inputs, std::vector<uint32_t> outputs);

  // Direct access, e.g. for tests that break a model on purpose.
  Model& model() { return model_; }
  Model build() const { return model_; }

 private:
  uint32_t addOperand(Operand operand);
  Model model_;
};

// A request whose arguments each live in a pool of their own, with the memories to read back.
struct RequestWithMemories {
  Request request;
  std::vector<SharedMemory> inputs;
  std::vector<SharedMemory> outputs;
};

// Makes a zero-filled memory of a size: createHeapMemory, createSharedMemory, ...
using MemoryAllocator = Result<SharedMemory> (*)(size_t size);

// One pool per input holding its bytes, and one zeroed pool per output of the given size, all
// from `allocate`.
Result<RequestWithMemories> makeRequest(const std::vector<std::vector<uint8_t>>& inputs,
                                        const std::vector<size_t>& outputSizes,
                                        MemoryAllocator allocate = createHeapMemory);

template <typename T>
std::vector<uint8_t> toBytes(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

template <typename T>
std::vector<T> fromMemory(const SharedMemory& memory, size_t count) {
  std::vector<T> values(count);
  if (count) std::memcpy(values.data(), memory->data(), count * sizeof(T));
  return values;
}

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_MODEL_BUILDER_H_
