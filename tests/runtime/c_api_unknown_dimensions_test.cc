// Unknown dimensions through the C API, the matrix Android's runtime/test/TestUnknownDimensions.cpp
// checks (re-expressed here): out = (in0 + in1) + constant, 3x3 tensors, where each dimension of
// in0, in1 and out is known when the model is built and given again (or not) at execution, or
// unknown when built and given at execution, rightly (3) or wrongly (2); the constant's are known
// or unknown when built. A constant of unknown shape is refused when the model is built; a wrong
// size at execution fails the computation (tried by compute); every other combination computes
// 5s, by compute and by startComputeWithDependencies, for float32, float16 and quant8. Compilations are made with
// Compilation_create on a real server's simulated NPU (and nnapi-reference), as a program would.
#include <android/NeuralNetworks.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "tests/runtime/c_api_helpers.h"
#include "tests/runtime/remote_server.h"

namespace nnremote::testing {
namespace {

const auto* const kServer = ::testing::AddGlobalTestEnvironment(new RemoteServer("capi-unknown-dims"));

constexpr uint32_t kIntended = 3, kOther = 2, kUnknown = 0;

// What one dimension of an operand is when the model is built, and at execution.
enum class Kind {
  kKnownGivenAgain,    // known when built, the same given at execution
  kKnownNotGiven,      // known when built, not given at execution
  kUnknownGivenRight,  // unknown when built, given at execution
  kUnknownGivenWrong,  // unknown when built, a wrong size given at execution
};
constexpr std::array<Kind, 4> kKinds = {Kind::kKnownGivenAgain, Kind::kKnownNotGiven, Kind::kUnknownGivenRight,
                                        Kind::kUnknownGivenWrong};
using Dimensions = std::pair<Kind, Kind>;  // of a 2-D operand

const char* nameOf(Kind kind) {
  switch (kind) {
    case Kind::kKnownGivenAgain:
      return "known, given again";
    case Kind::kKnownNotGiven:
      return "known, not given";
    case Kind::kUnknownGivenRight:
      return "unknown, given";
    case Kind::kUnknownGivenWrong:
      return "unknown, given wrong";
  }
  return "?";
}
std::string nameOf(const Dimensions& d) { return std::string("{") + nameOf(d.first) + "; " + nameOf(d.second) + "}"; }

uint32_t builtSize(Kind kind) {
  return kind == Kind::kKnownGivenAgain || kind == Kind::kKnownNotGiven ? kIntended : kUnknown;
}
uint32_t executedSize(Kind kind) { return kind == Kind::kUnknownGivenWrong ? kOther : kIntended; }

// The tensor type under test: its NDK code, and 1, 2, 5 and 10 in its encoding.
struct TensorKind {
  const char* name;
  int32_t type;
  float scale;
  size_t elementSize;
  std::array<uint16_t, 4> values;  // 1, 2, 5, 10 (a byte's worth for quant8, half bits for float16)
};
const TensorKind kFloat32{"TENSOR_FLOAT32", ANEURALNETWORKS_TENSOR_FLOAT32, 0.0f, 4, {}};
const TensorKind kFloat16{"TENSOR_FLOAT16", ANEURALNETWORKS_TENSOR_FLOAT16, 0.0f, 2, {0x3c00, 0x4000, 0x4500, 0x4900}};
const TensorKind kQuant8{"TENSOR_QUANT8_ASYMM", ANEURALNETWORKS_TENSOR_QUANT8_ASYMM, 1.0f, 1, {1, 2, 5, 10}};

// Nine elements of `value` (0: 1, 1: 2, 2: 5, 3: 10) in `kind`'s encoding.
std::vector<uint8_t> filled(const TensorKind& kind, int value) {
  static constexpr float kFloats[] = {1, 2, 5, 10};
  std::vector<uint8_t> bytes(kIntended * kIntended * kind.elementSize);
  for (size_t i = 0; i < kIntended * kIntended; ++i) {
    if (kind.elementSize == 4) {
      std::memcpy(&bytes[i * 4], &kFloats[value], 4);
    } else if (kind.elementSize == 2) {
      std::memcpy(&bytes[i * 2], &kind.values[value], 2);
    } else {
      bytes[i] = static_cast<uint8_t>(kind.values[value]);
    }
  }
  return bytes;
}

class UnknownDimensionsTest : public ::testing::TestWithParam<TensorKind> {
 protected:
  struct Built {
    int code = kOk;  // the first failure building or compiling it
    Model model;
    Compilation compilation;
  };

  // The model and compilation for these operands' shapes when built, made once.
  Built& built(const Dimensions& in0, const Dimensions& in1, const Dimensions& constant, const Dimensions& out) {
    const auto key = std::make_tuple(builtSize(in0.first), builtSize(in0.second), builtSize(in1.first),
                                     builtSize(in1.second), builtSize(constant.first), builtSize(constant.second),
                                     builtSize(out.first), builtSize(out.second));
    auto found = built_.find(key);
    if (found != built_.end()) return found->second;
    Built& b = built_[key];
    ANeuralNetworksModel* raw = nullptr;
    b.code = ANeuralNetworksModel_create(&raw);
    if (b.code != kOk) return b;
    b.model.reset(raw);
    const TensorKind& kind = GetParam();
    auto addTensor = [&](const Dimensions& d) {
      const uint32_t dimensions[2] = {builtSize(d.first), builtSize(d.second)};
      const ANeuralNetworksOperandType type{kind.type, 2, dimensions, kind.scale, 0};
      if (b.code == kOk) b.code = ANeuralNetworksModel_addOperand(raw, &type);
    };
    addTensor(in0);                                                   // 0
    addTensor(in1);                                                   // 1
    addTensor({Kind::kUnknownGivenRight, Kind::kUnknownGivenRight});  // 2: in0 + in1
    addTensor(constant);                                              // 3
    addTensor(out);                                                   // 4
    const ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
    if (b.code == kOk) b.code = ANeuralNetworksModel_addOperand(raw, &scalar);  // 5: no activation
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    const std::vector<uint8_t> twos = filled(kind, 1);
    if (b.code == kOk) b.code = ANeuralNetworksModel_setOperandValue(raw, 5, &none, sizeof none);
    if (b.code == kOk) b.code = ANeuralNetworksModel_setOperandValue(raw, 3, twos.data(), twos.size());
    const uint32_t first[] = {0, 1, 5}, firstOut[] = {2}, second[] = {2, 3, 5}, secondOut[] = {4};
    const uint32_t inputs[] = {0, 1}, outputs[] = {4};
    if (b.code == kOk) b.code = ANeuralNetworksModel_addOperation(raw, ANEURALNETWORKS_ADD, 3, first, 1, firstOut);
    if (b.code == kOk) b.code = ANeuralNetworksModel_addOperation(raw, ANEURALNETWORKS_ADD, 3, second, 1, secondOut);
    if (b.code == kOk) b.code = ANeuralNetworksModel_identifyInputsAndOutputs(raw, 2, inputs, 1, outputs);
    if (b.code == kOk) b.code = ANeuralNetworksModel_finish(raw);
    if (b.code != kOk) return b;
    ANeuralNetworksCompilation* compilation = nullptr;
    b.code = ANeuralNetworksCompilation_create(raw, &compilation);
    if (b.code != kOk) return b;
    b.compilation.reset(compilation);
    b.code = ANeuralNetworksCompilation_finish(compilation);
    return b;
  }

  std::map<std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t>, Built> built_;
};

// Sets argument `index` of `execution` (an input or the output) as Android's test does: with no
// type when both dimensions are known and not given again, else with the sizes given.
int setArgument(ANeuralNetworksExecution* execution, bool isInput, int32_t index, const TensorKind& kind,
                const Dimensions& d, void* buffer) {
  const uint32_t dimensions[2] = {executedSize(d.first), executedSize(d.second)};
  const ANeuralNetworksOperandType type{kind.type, 2, dimensions, kind.scale, 0};
  const bool noType = d.first == Kind::kKnownNotGiven && d.second == Kind::kKnownNotGiven;
  const size_t length = dimensions[0] * dimensions[1] * kind.elementSize;
  return isInput ? ANeuralNetworksExecution_setInput(execution, index, noType ? nullptr : &type, buffer, length)
                 : ANeuralNetworksExecution_setOutput(execution, index, noType ? nullptr : &type, buffer, length);
}

TEST_P(UnknownDimensionsTest, EveryCombinationComputesOrFailsAsAndroidDoes) {
  const TensorKind& kind = GetParam();
  std::vector<uint8_t> ones = filled(kind, 0), twos = filled(kind, 1), fives = filled(kind, 2);
  int computed = 0, refusedModels = 0, failedComputations = 0;
  // Every kind for each of the six dimensions of in0, in1 and out, and two for the constant's.
  constexpr int kCombinations = 1 << (2 * 6 + 2);
  for (int combination = 0; combination < kCombinations; ++combination) {
    auto kindAt = [combination](int dimension) { return kKinds[(combination >> (2 * dimension)) & 3]; };
    const Dimensions in0{kindAt(0), kindAt(1)}, in1{kindAt(2), kindAt(3)}, out{kindAt(4), kindAt(5)};
    const Dimensions constant{combination & (1 << 12) ? Kind::kUnknownGivenRight : Kind::kKnownNotGiven,
                              combination & (1 << 13) ? Kind::kUnknownGivenRight : Kind::kKnownNotGiven};
    SCOPED_TRACE("in0 " + nameOf(in0) + ", in1 " + nameOf(in1) + ", constant " + nameOf(constant) + ", out " +
                 nameOf(out));
    Built& b = built(in0, in1, constant, out);
    if (constant.first != Kind::kKnownNotGiven || constant.second != Kind::kKnownNotGiven) {
      EXPECT_NE(b.code, kOk) << "a constant of unknown shape";
      ++refusedModels;
      continue;
    }
    ASSERT_EQ(b.code, kOk) << "the model or its compilation";
    bool allRight = true;
    for (int dimension = 0; dimension < 6; ++dimension)
      allRight = allRight && kindAt(dimension) != Kind::kUnknownGivenWrong;
    // As Android's test: a combination that must fail is tried by compute alone.
    for (bool fenced : {false, true}) {
      if (fenced && !allRight) continue;
      SCOPED_TRACE(fenced ? "startComputeWithDependencies" : "compute");
      Execution execution = executionOf(b.compilation.get());
      ASSERT_NE(execution, nullptr);
      std::vector<uint8_t> result = filled(kind, 3);
      ASSERT_EQ(setArgument(execution.get(), true, 0, kind, in0, ones.data()), kOk);
      ASSERT_EQ(setArgument(execution.get(), true, 1, kind, in1, twos.data()), kOk);
      ASSERT_EQ(setArgument(execution.get(), false, 0, kind, out, result.data()), kOk);
      int code = kOk;
      if (fenced) {
        ANeuralNetworksEvent* event = nullptr;
        code = ANeuralNetworksExecution_startComputeWithDependencies(execution.get(), nullptr, 0, 0, &event);
        if (code == kOk) code = ANeuralNetworksEvent_wait(event);
        ANeuralNetworksEvent_free(event);
      } else {
        code = ANeuralNetworksExecution_compute(execution.get());
      }
      if (allRight) {
        ASSERT_EQ(code, kOk);
        ASSERT_EQ(result, fives);
        ++computed;
      } else {
        ASSERT_NE(code, kOk) << "a size given wrong";
        ++failedComputations;
      }
    }
  }
  std::cout << kind.name << ": " << computed << " computed, " << failedComputations << " failed as they must, "
            << refusedModels << " models refused\n";
}

INSTANTIATE_TEST_SUITE_P(Types, UnknownDimensionsTest, ::testing::Values(kFloat32, kFloat16, kQuant8),
                         [](const ::testing::TestParamInfo<TensorKind>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace nnremote::testing
