// The XNNPACK fast path (constant weights) against the simulator's own loops (the same weights
// given as model inputs, which XNNPACK cannot pack), for the layers it takes over: results must
// agree within the CTS tolerances, also on re-execution and from concurrent executions of one
// prepared model sharing the cached operator.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <thread>

#include "drivers/sim/kernels/xnnpack_ops.h"
#include "drivers/sim/operation_registry.h"
#include "drivers/sim/sim_device.h"
#include "hal/operand_types.h"
#include "hal/model_builder.h"

namespace nnremote::sim {
namespace {

using hal::OperandType;
using hal::OperationType;

struct Operand {
  OperandType type;
  std::vector<uint32_t> dimensions;
  float scale = 0;
  int32_t zeroPoint = 0;
  std::vector<uint8_t> bytes;
};

std::vector<uint8_t> deterministicBytes(OperandType type, size_t count, uint32_t seed) {
  std::vector<uint8_t> bytes;
  uint32_t state = seed * 2654435761u + 1;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (size_t i = 0; i < count; ++i) {
    if (type == OperandType::TENSOR_FLOAT32) {
      const float v = float(int32_t(next() >> 8) % 2001 - 1000) / 1000.0f;
      const auto* p = reinterpret_cast<const uint8_t*>(&v);
      bytes.insert(bytes.end(), p, p + 4);
    } else if (type == OperandType::TENSOR_INT32) {
      const int32_t v = int32_t(next() >> 8) % 2001 - 1000;
      const auto* p = reinterpret_cast<const uint8_t*>(&v);
      bytes.insert(bytes.end(), p, p + 4);
    } else {
      bytes.push_back(uint8_t(next() >> 24));
    }
  }
  return bytes;
}

// One operation with `weights` and `bias` either as constants or as extra model inputs.
struct Layer {
  OperationType type;
  Operand input, weights, bias, output;
  std::vector<int32_t> parameters;  // INT32 scalars after the bias
  bool nhwcFlag = false;            // then a BOOL layout flag (false: NHWC), where required
};

hal::Model buildLayer(const Layer& layer, bool constantWeights) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(layer.input.type, layer.input.dimensions, layer.input.scale, layer.input.zeroPoint);
  auto weightOperand = [&](const Operand& o) {
    return constantWeights ? b.addConstant(o.type, o.dimensions, o.bytes.data(), o.bytes.size(), o.scale, o.zeroPoint)
                           : b.addInput(o.type, o.dimensions, o.scale, o.zeroPoint);
  };
  const uint32_t weights = weightOperand(layer.weights);
  const uint32_t bias = weightOperand(layer.bias);
  std::vector<uint32_t> inputs = {in, weights, bias};
  for (int32_t p : layer.parameters) inputs.push_back(b.addInt32(p));
  if (layer.nhwcFlag) inputs.push_back(b.addBool(false));
  const uint32_t out =
      b.addOutput(layer.output.type, layer.output.dimensions, layer.output.scale, layer.output.zeroPoint);
  b.addOperation(layer.type, inputs, {out});
  return b.build();
}

size_t outputBytes(const Layer& layer) {
  return hal::sizeOfData(layer.output.type, layer.output.dimensions).value();
}

std::vector<uint8_t> execute(const hal::SharedPreparedModel& prepared, std::vector<std::vector<uint8_t>> inputs,
                             size_t bytes) {
  auto io = hal::makeRequest(inputs, {bytes});
  auto outcome = prepared->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  EXPECT_TRUE(outcome.ok()) << outcome.error().message;
  return outcome.ok() ? hal::fromMemory<uint8_t>(io->outputs[0], bytes) : std::vector<uint8_t>{};
}

hal::SharedPreparedModel prepare(const hal::Model& model) {
  auto prepared = SimDevice::create(edgeNpuConfig())
                      ->prepareModel(model, hal::ExecutionPreference::SUSTAINED_SPEED, hal::Priority::MEDIUM,
                                     std::nullopt, {}, {}, {});
  EXPECT_TRUE(prepared.ok()) << prepared.error().message;
  return prepared.ok() ? *prepared : nullptr;
}

void expectWithinCtsTolerance(OperandType type, const std::vector<uint8_t>& fast, const std::vector<uint8_t>& reference) {
  ASSERT_EQ(fast.size(), reference.size());
  if (type == OperandType::TENSOR_FLOAT32) {
    std::vector<float> a(fast.size() / 4), b(a.size());
    std::memcpy(a.data(), fast.data(), fast.size());
    std::memcpy(b.data(), reference.data(), reference.size());
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i], b[i], 1e-5 + 5 * std::ldexp(1.0, -23) * std::abs(b[i])) << "element " << i;
    }
  } else {
    for (size_t i = 0; i < fast.size(); ++i) EXPECT_NEAR(fast[i], reference[i], 1) << "element " << i;
  }
}

// Runs `layer` both ways on two inputs (the second re-uses the cached operator) and from four
// threads at once.
void expectFastPathAgrees(const Layer& layer) {
  const hal::SharedPreparedModel fast = prepare(buildLayer(layer, /*constantWeights=*/true));
  const hal::SharedPreparedModel reference = prepare(buildLayer(layer, /*constantWeights=*/false));
  ASSERT_TRUE(fast && reference);
  const size_t bytes = outputBytes(layer);
  const size_t inputCount = hal::elementCount(layer.input.dimensions);
  for (uint32_t seed : {1u, 2u}) {
    const std::vector<uint8_t> input = deterministicBytes(layer.input.type, inputCount, seed);
    const std::vector<uint8_t> expected = execute(reference, {input, layer.weights.bytes, layer.bias.bytes}, bytes);
    expectWithinCtsTolerance(layer.output.type, execute(fast, {input}, bytes), expected);
  }
  std::vector<std::vector<uint8_t>> results(4);
  std::vector<std::thread> threads;
  const std::vector<uint8_t> input = deterministicBytes(layer.input.type, inputCount, 3);
  for (auto& result : results) threads.emplace_back([&] { result = execute(fast, {input}, bytes); });
  for (auto& thread : threads) thread.join();
  const std::vector<uint8_t> expected = execute(reference, {input, layer.weights.bytes, layer.bias.bytes}, bytes);
  for (const auto& result : results) expectWithinCtsTolerance(layer.output.type, result, expected);
}

Operand tensor(OperandType type, std::vector<uint32_t> dimensions, float scale, int32_t zeroPoint, uint32_t seed) {
  Operand o{type, dimensions, scale, zeroPoint, {}};
  o.bytes = deterministicBytes(type, hal::elementCount(dimensions), seed);
  return o;
}

constexpr auto kFloat = OperandType::TENSOR_FLOAT32;
constexpr auto kQuant = OperandType::TENSOR_QUANT8_ASYMM;
constexpr auto kInt32 = OperandType::TENSOR_INT32;

// CONV_2D, 3x3, stride 2, SAME padding, RELU6: 1x9x9x5 -> 1x5x5x7.
Layer convolution(OperandType type) {
  const bool q = type == kQuant;
  return {OperationType::CONV_2D,
          tensor(type, {1, 9, 9, 5}, q ? 0.05f : 0, q ? 120 : 0, 0),
          tensor(type, {7, 3, 3, 5}, q ? 0.02f : 0, q ? 130 : 0, 10),
          tensor(q ? kInt32 : kFloat, {7}, q ? 0.001f : 0, 0, 11),
          tensor(type, {1, 5, 5, 7}, q ? 0.03f : 0, q ? 10 : 0, 0),
          {/*SAME*/ 1, /*stride w*/ 2, /*stride h*/ 2, /*RELU6*/ 3}};
}

// DEPTHWISE_CONV_2D, 3x3, multiplier 2, explicit padding 1/0/1/0, no activation: 2x6x6x3 -> 2x5x5x6.
Layer depthwise(OperandType type) {
  const bool q = type == kQuant;
  return {OperationType::DEPTHWISE_CONV_2D,
          tensor(type, {2, 6, 6, 3}, q ? 0.05f : 0, q ? 128 : 0, 0),
          tensor(type, {1, 3, 3, 6}, q ? 0.02f : 0, q ? 127 : 0, 20),
          tensor(q ? kInt32 : kFloat, {6}, q ? 0.001f : 0, 0, 21),
          tensor(type, {2, 5, 5, 6}, q ? 0.02f : 0, q ? 128 : 0, 0),
          {1, 0, 1, 0, /*stride*/ 1, 1, /*multiplier*/ 2, /*NONE*/ 0}};
}

// GROUPED_CONV_2D, 2x2, 3 groups, VALID, RELU1: 1x5x5x6 (2 channels per group) -> 1x4x4x9.
Layer grouped(OperandType type) {
  const bool q = type == kQuant;
  return {OperationType::GROUPED_CONV_2D,
          tensor(type, {1, 5, 5, 6}, q ? 0.05f : 0, q ? 128 : 0, 0),
          tensor(type, {9, 2, 2, 2}, q ? 0.02f : 0, q ? 125 : 0, 40),
          tensor(q ? kInt32 : kFloat, {9}, q ? 0.001f : 0, 0, 41),
          tensor(type, {1, 4, 4, 9}, q ? 0.01f : 0, q ? 128 : 0, 0),
          {/*VALID*/ 2, /*stride*/ 1, 1, /*groups*/ 3, /*RELU1*/ 2},
          /*nhwcFlag=*/true};
}

// FULLY_CONNECTED, RELU: [3, 2, 8] viewed as 6x8 -> 6x5.
Layer fullyConnected(OperandType type) {
  const bool q = type == kQuant;
  return {OperationType::FULLY_CONNECTED,
          tensor(type, {3, 2, 8}, q ? 0.05f : 0, q ? 100 : 0, 0),
          tensor(type, {5, 8}, q ? 0.02f : 0, q ? 140 : 0, 30),
          tensor(q ? kInt32 : kFloat, {5}, q ? 0.001f : 0, 0, 31),
          tensor(type, {6, 5}, q ? 0.04f : 0, q ? 0 : 0, 0),
          {/*RELU*/ 1}};
}

// The fast path takes an operation only with a state to keep its operator in and constant
// weights; what it computes is checked by hand here and against the loops below.
TEST(XnnpackOpsTest, TakesConstantWeightsOnlyAndKeepsTheOperator) {
  std::vector<float> in = {1, 2, 3}, weights = {1, 0, 1, 2, 2, 2}, bias = {0.5f, -20}, out(2);
  auto makeTensor = [](std::vector<float>& data, std::vector<uint32_t> dims, bool constant) {
    Tensor t;
    t.type = kFloat;
    t.dimensions = std::move(dims);
    t.data = reinterpret_cast<uint8_t*>(data.data());
    t.length = data.size() * sizeof(float);
    t.isConstant = constant;
    return t;
  };
  Tensor input = makeTensor(in, {1, 3}, false), output = makeTensor(out, {1, 2}, false);
  Tensor constantWeights = makeTensor(weights, {2, 3}, true), constantBias = makeTensor(bias, {2}, true);
  Tensor runtimeWeights = makeTensor(weights, {2, 3}, false);
  OperationContext context(OperationType::FULLY_CONNECTED, {&input, &constantWeights, &constantBias}, {&output});
  EXPECT_FALSE(runFullyConnectedOnXnnpack(context, 1, FusedActivation::RELU));  // no state
  OperationState state;
  context.setState(&state);
  ASSERT_TRUE(runFullyConnectedOnXnnpack(context, 1, FusedActivation::RELU));
  EXPECT_TRUE(state.value != nullptr);
  EXPECT_EQ(out[0], 4.5f);  // 1 + 3 + 0.5
  EXPECT_EQ(out[1], 0.0f);  // 2 + 4 + 6 - 20 = -8, clamped by RELU
  OperationState otherState;
  OperationContext runtime(OperationType::FULLY_CONNECTED, {&input, &runtimeWeights, &constantBias}, {&output});
  runtime.setState(&otherState);
  EXPECT_FALSE(runFullyConnectedOnXnnpack(runtime, 1, FusedActivation::RELU));
}

// A requantization tie: 5 x 1 at output scale 2 is 2.5. The reference's gemmlowp multiplier
// rounds it away from zero (3); XNNPACK rounds to nearest even (2), inside the CTS tolerance.
// `reference_kernels` keeps every operation on the simulator's own, bit-exact loops.
TEST(XnnpackOpsTest, ReferenceKernelsAreBitExactWhereXnnpackRoundsDifferently) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(kQuant, {1, 1}, 1.0f, 0);
  const uint32_t weights = b.addConstant(kQuant, {1, 1}, std::vector<uint8_t>{129}, 1.0f, 128);
  const uint32_t bias = b.addConstant(kInt32, {1}, std::vector<int32_t>{0}, 1.0f);
  const uint32_t out = b.addOutput(kQuant, {1, 1}, 2.0f, 0);
  b.addOperation(OperationType::FULLY_CONNECTED, {in, weights, bias, b.addInt32(0)}, {out});
  auto run = [&](bool referenceKernels) {
    NpuConfig npu = edgeNpuConfig();
    npu.set_reference_kernels(referenceKernels);
    auto prepared = SimDevice::create(npu)->prepareModel(b.build(), hal::ExecutionPreference::LOW_POWER,
                                                         hal::Priority::LOW, std::nullopt, {}, {}, {});
    EXPECT_TRUE(prepared.ok());
    return execute(*prepared, {{5}}, 1).at(0);
  };
  EXPECT_EQ(run(/*referenceKernels=*/true), 3);
  EXPECT_EQ(run(/*referenceKernels=*/false), 2);
}

TEST(XnnpackOpsTest, ConvolutionFloat32) { expectFastPathAgrees(convolution(kFloat)); }
TEST(XnnpackOpsTest, ConvolutionQuant8) { expectFastPathAgrees(convolution(kQuant)); }
TEST(XnnpackOpsTest, DepthwiseFloat32) { expectFastPathAgrees(depthwise(kFloat)); }
TEST(XnnpackOpsTest, DepthwiseQuant8) { expectFastPathAgrees(depthwise(kQuant)); }
TEST(XnnpackOpsTest, GroupedConvolutionFloat32) { expectFastPathAgrees(grouped(kFloat)); }
TEST(XnnpackOpsTest, GroupedConvolutionQuant8) { expectFastPathAgrees(grouped(kQuant)); }
TEST(XnnpackOpsTest, FullyConnectedFloat32) { expectFastPathAgrees(fullyConnected(kFloat)); }
TEST(XnnpackOpsTest, FullyConnectedQuant8) { expectFastPathAgrees(fullyConnected(kQuant)); }

// A requantization scale (input × filter / output) under XNNPACK's 2^-32 is legal in NNAPI: every
// accumulator rounds to nothing, leaving the output's zero point. Debian's XNNPACK aborts the
// process on one (the wire fuzzer found it with a FULLY_CONNECTED), so such layers stay on the
// simulator's loops.
TEST(XnnpackOpsTest, ARequantizationScaleBelowXnnpacksRangeStaysOnTheSimulatorsLoops) {
  for (Layer layer : {convolution(kQuant), depthwise(kQuant), grouped(kQuant), fullyConnected(kQuant)}) {
    SCOPED_TRACE(static_cast<int>(layer.type));
    layer.input.scale = layer.weights.scale = std::ldexp(1.0f, -20);
    layer.bias.scale = std::ldexp(1.0f, -40);  // input × filter, as NNAPI requires
    layer.output.scale = 1.0f;
    expectFastPathAgrees(layer);
    const hal::SharedPreparedModel prepared = prepare(buildLayer(layer, /*constantWeights=*/true));
    ASSERT_NE(prepared, nullptr);
    const std::vector<uint8_t> input = deterministicBytes(kQuant, hal::elementCount(layer.input.dimensions), 5);
    const std::vector<uint8_t> output = execute(prepared, {input}, outputBytes(layer));
    EXPECT_EQ(output, std::vector<uint8_t>(outputBytes(layer), uint8_t(layer.output.zeroPoint)));
  }
}

// Operations without weights (pooling, quantized ADD/SUB/MUL): the kernel run with an operation
// state (XNNPACK) against the same kernel without one (its own loops).
struct DirectOperation {
  OperationType type;
  std::vector<Operand> inputs;  // tensors, then INT32 scalars given as 4-byte Operands
  Operand output;
  bool constantWeights = false;  // inputs 1 and 2 (a layer's weights and bias) are constants
};

// A copy of `bytes` whose last byte is the last of a page, followed by an inaccessible page: a
// read past its end faults, as one past the end of a client's page-aligned pool does.
class GuardedBytes {
 public:
  explicit GuardedBytes(const std::vector<uint8_t>& bytes) {
    const size_t page = size_t(::sysconf(_SC_PAGESIZE));
    span_ = (bytes.size() + page - 1) / page * page + page;
    void* mapped = ::mmap(nullptr, span_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT_NE(mapped, MAP_FAILED);
    base_ = static_cast<uint8_t*>(mapped);
    EXPECT_EQ(::mprotect(base_ + span_ - page, page, PROT_NONE), 0);
    data_ = base_ + span_ - page - bytes.size();
    std::memcpy(data_, bytes.data(), bytes.size());
  }
  ~GuardedBytes() { ::munmap(base_, span_); }
  uint8_t* data() const { return data_; }

 private:
  uint8_t* base_ = nullptr;
  uint8_t* data_ = nullptr;
  size_t span_ = 0;
};

// Runs the kernel, with XNNPACK when given a `state`; `guarded` places each tensor input right
// before an inaccessible page.
std::vector<uint8_t> runKernel(const DirectOperation& operation, OperationState* state, bool guarded = false) {
  std::vector<Operand> operands = operation.inputs;
  std::vector<Tensor> tensors(operands.size() + 1);
  std::vector<Tensor*> inputs;
  std::vector<std::unique_ptr<GuardedBytes>> guards;
  for (size_t i = 0; i < operands.size(); ++i) {
    Tensor& t = tensors[i];
    t.type = operands[i].type;
    t.dimensions = operands[i].dimensions;
    t.scale = operands[i].scale;
    t.zeroPoint = operands[i].zeroPoint;
    t.data = operands[i].bytes.data();
    t.length = operands[i].bytes.size();
    t.isConstant = !hal::isTensor(t.type) || (operation.constantWeights && (i == 1 || i == 2));
    if (guarded && hal::isTensor(t.type)) {
      guards.push_back(std::make_unique<GuardedBytes>(operands[i].bytes));
      t.data = guards.back()->data();
    }
    inputs.push_back(&t);
  }
  Tensor& out = tensors.back();
  out.type = operation.output.type;
  out.scale = operation.output.scale;
  out.zeroPoint = operation.output.zeroPoint;
  OperationContext context(operation.type, inputs, {&out});
  context.setState(state);
  const OperationKernel& kernel = *findKernel(operation.type);
  EXPECT_TRUE(kernel.validate(context).ok());
  EXPECT_TRUE(kernel.prepare(context).ok());
  EXPECT_EQ(out.dimensions, operation.output.dimensions);
  std::vector<uint8_t> result(hal::sizeOfData(out.type, out.dimensions).value(), 0xAB);
  out.data = result.data();
  out.length = result.size();
  const Status status = kernel.execute(context);
  EXPECT_TRUE(status.ok()) << status.error().message;
  return result;
}

Operand scalar(int32_t value) {
  Operand o{OperandType::INT32, {}, 0, 0, {}};
  o.bytes.resize(4);
  std::memcpy(o.bytes.data(), &value, 4);
  return o;
}

void expectStatePathAgrees(const DirectOperation& operation, bool expectXnnpack) {
  OperationState state;
  const std::vector<uint8_t> fast = runKernel(operation, &state);
  EXPECT_EQ(state.value != nullptr, expectXnnpack);
  expectWithinCtsTolerance(operation.output.type, fast, runKernel(operation, nullptr));
}

// 3x3 pooling, stride 2, explicit padding 1/0/1/0 (left, right, top, bottom), RELU: 1x7x8x6 -> 1x3x4x6.
DirectOperation pooling(OperationType type, OperandType tensorType) {
  const bool q = tensorType == kQuant;
  return {type,
          {tensor(tensorType, {1, 7, 8, 6}, q ? 0.1f : 0, q ? 100 : 0, 40), scalar(1), scalar(0), scalar(1), scalar(0),
           scalar(2), scalar(2), scalar(3), scalar(3), scalar(1)},
          tensor(tensorType, {1, 3, 4, 6}, q ? 0.1f : 0, q ? 100 : 0, 0)};
}

DirectOperation quantizedBinary(OperationType type, std::vector<uint32_t> bDims) {
  return {type,
          {tensor(kQuant, {2, 3, 4, 5}, 0.05f, 120, 50), tensor(kQuant, bDims, 0.03f, 140, 51), scalar(/*RELU*/ 1)},
          tensor(kQuant, {2, 3, 4, 5}, type == OperationType::MUL ? 0.02f : 0.08f, 60, 0)};
}

TEST(XnnpackOpsTest, MaxPoolFloat32) { expectStatePathAgrees(pooling(OperationType::MAX_POOL_2D, kFloat), true); }
TEST(XnnpackOpsTest, MaxPoolQuant8) { expectStatePathAgrees(pooling(OperationType::MAX_POOL_2D, kQuant), true); }
TEST(XnnpackOpsTest, AveragePoolFloat32) {
  expectStatePathAgrees(pooling(OperationType::AVERAGE_POOL_2D, kFloat), true);
}
TEST(XnnpackOpsTest, AveragePoolQuant8StaysOnTheSimulatorsLoops) {
  // XNNPACK's quantized average counts padding taps; NNAPI's does not.
  expectStatePathAgrees(pooling(OperationType::AVERAGE_POOL_2D, kQuant), false);
}
// A window far larger than the input (the taps outside are padding): XNNPACK would build one
// pointer per output pixel and tap (a fuzzed 2 x 50,331,650 window took 1.8 GB), so the kernel
// computes it with its own loop, quickly and with the same answer.
TEST(XnnpackOpsTest, AWindowLargerThanTheInputStaysOnTheSimulatorsLoops) {
  for (OperandType type : {kFloat, kQuant}) {
    const bool q = type == kQuant;
    // Implicit SAME padding, strides 2, a 2 x 50,331,650 window: 1x1x2x4 -> 1x1x1x4.
    const DirectOperation huge{OperationType::MAX_POOL_2D,
                               {tensor(type, {1, 1, 2, 4}, q ? 0.1f : 0, q ? 100 : 0, 40), scalar(1), scalar(2),
                                scalar(2), scalar(2), scalar(50331650), scalar(0)},
                               tensor(type, {1, 1, 1, 4}, q ? 0.1f : 0, q ? 100 : 0, 0)};
    expectStatePathAgrees(huge, false);
  }
}

// A layer as one kernel call, its weights constants.
DirectOperation direct(const Layer& layer) {
  DirectOperation operation{layer.type, {layer.input, layer.weights, layer.bias}, layer.output, true};
  for (int32_t p : layer.parameters) operation.inputs.push_back(scalar(p));
  if (layer.nhwcFlag) operation.inputs.push_back(Operand{OperandType::BOOL, {}, 0, 0, {0}});
  return operation;
}

// XNNPACK reads up to 16 bytes past an input's end (XNN_EXTRA_BYTES). An input that ends where
// its memory does, here right before an inaccessible page, must be computed without a fault
// (a fuzzed cache seed's pooling input at the end of a heap mapping crashed the server).
TEST(XnnpackOpsTest, AnInputEndingAtAnInaccessiblePageIsNotReadPastIt) {
  const std::vector<DirectOperation> operations = {
      pooling(OperationType::MAX_POOL_2D, kFloat),     pooling(OperationType::MAX_POOL_2D, kQuant),
      pooling(OperationType::AVERAGE_POOL_2D, kFloat), quantizedBinary(OperationType::ADD, {4, 1}),
      direct(convolution(kFloat)),                     direct(convolution(kQuant)),
      direct(depthwise(kFloat)),                       direct(fullyConnected(kFloat)),
      direct(fullyConnected(kQuant))};
  for (const DirectOperation& operation : operations) {
    SCOPED_TRACE(hal::toString(operation.type));
    OperationState state;
    const std::vector<uint8_t> guarded = runKernel(operation, &state, /*guarded=*/true);
    EXPECT_NE(state.value, nullptr) << "XNNPACK did not run it";
    expectWithinCtsTolerance(operation.output.type, guarded, runKernel(operation, nullptr));
  }
}

TEST(XnnpackOpsTest, QuantizedAddSubMulWithAndWithoutBroadcasting) {
  for (OperationType type : {OperationType::ADD, OperationType::SUB, OperationType::MUL}) {
    expectStatePathAgrees(quantizedBinary(type, {2, 3, 4, 5}), true);
    expectStatePathAgrees(quantizedBinary(type, {4, 1}), true);
  }
}

}  // namespace
}  // namespace nnremote::sim
