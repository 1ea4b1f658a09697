// Fuzz target: the NDK C API (libneuralnetworks), driven as a program drives it. The input is one
// wire::Model, mutated a field at a time by wire_model_mutator.cc as model_validation_fuzzer's
// is, but not validated here: every operand, value, per-channel quantization, referenced model,
// operation and the inputs and outputs go to the ANeuralNetworksModel_* calls one by one, so the
// runtime's own checks are all that stands between them and a device, as in an app. What the
// runtime accepts is compiled with Compilation_create (nnapi-reference only: no server is
// asked) and computed on zero inputs by one of the four executors, then its output shapes are
// read. Errors are fine; crashes, leaks and undefined behaviour are not.
// Seeds: every conformance model (make_fuzz_corpus writes them to OUT/model).
#include <android/NeuralNetworks.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "hal/operand_types.h"
#include "tests/fuzz/fuzz_target.h"
#include "tests/runtime/c_api_model.h"
#include "wire/conversions.h"

namespace {

using namespace nnremote;  // NOLINT: a fuzz target

// Bounds that keep one input within the fuzzer's memory and time: larger models are not
// compiled, larger arguments not computed. (The runtime's nnapi-reference has the 1 GiB of
// edge16; a fuzzer's RSS limit is 2 GiB.)
constexpr uint64_t kMostModelBytes = 64u << 20;
constexpr uint64_t kMostArgumentBytes = 1u << 20;
constexpr uint64_t kUnknownOutputBytes = 4096;

// No remote device: the registry is made from the environment at the first call that needs it.
void onlyTheReferenceDevice() {
  static const bool set = ::setenv("NNREMOTE_TARGETS", "", 1) == 0;
  (void)set;
}

// The bytes of every operand whose size the model declares, in all its subgraphs.
uint64_t declaredBytes(const hal::Model& model) {
  uint64_t total = 0;
  auto add = [&](const hal::Model::Subgraph& subgraph) {
    for (const hal::Operand& operand : subgraph.operands) {
      if (auto size = hal::sizeOfData(operand.type, operand.dimensions)) total += *size;
    }
  };
  add(model.main);
  for (const auto& subgraph : model.referenced) add(subgraph);
  return total;
}

// One argument as a program would give it: a type only where the model leaves dimensions
// unknown (each then 1), and a buffer of the size that type has.
struct Argument {
  std::vector<uint32_t> dimensions;
  std::optional<ANeuralNetworksOperandType> type;
  std::vector<uint8_t> bytes;
};

std::optional<Argument> argumentFor(const hal::Operand& operand, bool isOutput) {
  Argument argument;
  argument.dimensions = operand.dimensions;
  const bool isTensor = hal::isTensor(operand.type);
  bool unknown = isTensor && argument.dimensions.empty();
  if (unknown) argument.dimensions = {1};
  for (uint32_t& d : argument.dimensions) {
    if (d == 0) {
      unknown = true;
      d = 1;
    }
  }
  // An output of unknown shape gets room and no type: its shape comes from the execution.
  if (unknown && isOutput) {
    argument.bytes.resize(kUnknownOutputBytes);
    return argument;
  }
  const auto size = hal::sizeOfData(operand.type, argument.dimensions);
  if (size && *size > kMostArgumentBytes) return std::nullopt;
  argument.bytes.resize(size ? *size : 0);
  const bool extension = (static_cast<uint32_t>(operand.type) >> 16) != 0;  // its code is the program's to ask for
  if (unknown && !extension) {
    argument.type = ANeuralNetworksOperandType{static_cast<int32_t>(operand.type),
                                               static_cast<uint32_t>(argument.dimensions.size()),
                                               argument.dimensions.data(), operand.scale, operand.zeroPoint};
  }
  return argument;
}

int computeBy(int executor, ANeuralNetworksCompilation* compilation, ANeuralNetworksExecution* execution) {
  switch (executor) {
    case 0:
      return ANeuralNetworksExecution_compute(execution);
    case 1: {
      ANeuralNetworksEvent* event = nullptr;
      int code = ANeuralNetworksExecution_startCompute(execution, &event);
      if (code == ANEURALNETWORKS_NO_ERROR) code = ANeuralNetworksEvent_wait(event);
      ANeuralNetworksEvent_free(event);
      return code;
    }
    case 2: {
      ANeuralNetworksBurst* burst = nullptr;
      int code = ANeuralNetworksBurst_create(compilation, &burst);
      if (code == ANEURALNETWORKS_NO_ERROR) code = ANeuralNetworksExecution_burstCompute(execution, burst);
      ANeuralNetworksBurst_free(burst);
      return code;
    }
    default: {
      ANeuralNetworksEvent* event = nullptr;
      int code = ANeuralNetworksExecution_startComputeWithDependencies(execution, nullptr, 0, 0, &event);
      if (code == ANEURALNETWORKS_NO_ERROR) code = ANeuralNetworksEvent_wait(event);
      ANeuralNetworksEvent_free(event);
      return code;
    }
  }
}

// Computes the compiled model once on zero inputs, unless an argument would be too large.
void compute(const hal::Model& model, ANeuralNetworksCompilation* compilation, int executor) {
  std::vector<Argument> inputs, outputs;
  for (uint32_t index : model.main.inputIndexes) {
    auto argument = argumentFor(model.main.operands.at(index), false);
    if (!argument) return;
    inputs.push_back(std::move(*argument));
  }
  for (uint32_t index : model.main.outputIndexes) {
    auto argument = argumentFor(model.main.operands.at(index), true);
    if (!argument) return;
    outputs.push_back(std::move(*argument));
  }
  ANeuralNetworksExecution* execution = nullptr;
  if (ANeuralNetworksExecution_create(compilation, &execution) != ANEURALNETWORKS_NO_ERROR) return;
  (void)ANeuralNetworksExecution_setLoopTimeout(execution, 10'000'000);  // 10 ms
  for (size_t i = 0; i < inputs.size(); ++i) {
    Argument& a = inputs[i];
    (void)ANeuralNetworksExecution_setInput(execution, static_cast<int32_t>(i), a.type ? &*a.type : nullptr,
                                            a.bytes.data(), a.bytes.size());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    Argument& a = outputs[i];
    (void)ANeuralNetworksExecution_setOutput(execution, static_cast<int32_t>(i), a.type ? &*a.type : nullptr,
                                             a.bytes.data(), a.bytes.size());
  }
  (void)computeBy(executor, compilation, execution);
  for (size_t i = 0; i < outputs.size(); ++i) {
    uint32_t rank = 0;
    if (ANeuralNetworksExecution_getOutputOperandRank(execution, static_cast<int32_t>(i), &rank) || rank == 0) {
      continue;
    }
    std::vector<uint32_t> dimensions(rank);
    (void)ANeuralNetworksExecution_getOutputOperandDimensions(execution, static_cast<int32_t>(i), dimensions.data());
  }
  ANeuralNetworksExecution_free(execution);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onlyTheReferenceDevice();
  wire::Model wireModel;
  if (!wireModel.ParseFromArray(data, static_cast<int>(size))) return 0;
  // Only what a program could hold: constants inline, no memory of another process.
  auto model = wire::fromWire(wireModel, wire::resolveInlineOnly);
  if (!model.ok() || declaredBytes(*model) > kMostModelBytes) return 0;
  testing::CApiModel built;
  std::string failure;
  if (built.build(*model, &failure) != ANEURALNETWORKS_NO_ERROR) return 0;
  ANeuralNetworksCompilation* compilation = nullptr;
  if (ANeuralNetworksCompilation_create(built.main(), &compilation) == ANEURALNETWORKS_NO_ERROR &&
      ANeuralNetworksCompilation_finish(compilation) == ANEURALNETWORKS_NO_ERROR) {
    compute(*model, compilation, static_cast<int>(size % 4));
  }
  ANeuralNetworksCompilation_free(compilation);
  return 0;
}
