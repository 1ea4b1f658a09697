// The simulator's functional path against XNNPACK on the same MobileNet v1 1.0-224 (same
// weights, same input), float32 and quant8, single-threaded, side by side in one run. Before
// timing, it checks that both give the same answer (top-1 class and largest difference).
// Issue target: the simulator within 1.5x of XNNPACK.
//
//   bazel run -c opt //benchmarks:xnnpack_comparison_benchmark
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "accelerator_sim/sim_device.h"
#include "benchmarks/median_reporter.h"
#include "benchmarks/xnnpack_network.h"
#include "hal/model_builder.h"
#include "tools/models/mobilenet_v1.h"

namespace {

using nnremote::tools::Precision;

// Output probabilities as floats, whatever the precision.
std::vector<float> probabilities(const std::vector<uint8_t>& bytes, Precision precision) {
  std::vector<float> values;
  if (precision == Precision::QUANT8) {
    for (uint8_t q : bytes) values.push_back(q / 256.0f);
  } else {
    values.resize(bytes.size() / sizeof(float));
    std::memcpy(values.data(), bytes.data(), values.size() * sizeof(float));
  }
  return values;
}

struct Engines {
  nnremote::tools::BuiltModel built;
  nnremote::hal::SharedPreparedModel simulator;
  std::unique_ptr<nnremote::benchmarks::XnnpackNetwork> xnnpack;
};

Engines& enginesFor(Precision precision) {
  static std::map<Precision, Engines> engines;
  auto [it, inserted] = engines.try_emplace(precision);
  if (!inserted) return it->second;
  Engines& e = it->second;
  e.built = nnremote::tools::buildMobileNetV1(precision);
  auto device = nnremote::sim::SimDevice::create(nnremote::sim::edgeNpuConfig());
  auto prepared = device->prepareModel(e.built.model, nnremote::hal::ExecutionPreference::SUSTAINED_SPEED,
                                       nnremote::hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  if (prepared.ok()) e.simulator = *prepared;
  auto network = nnremote::benchmarks::XnnpackNetwork::create(e.built.model);
  if (network.ok()) {
    e.xnnpack = std::move(*network);
  } else {
    std::fprintf(stderr, "XNNPACK: %s\n", network.error().message.c_str());
  }
  return e;
}

// The simulator's output for the model's deterministic input.
std::vector<uint8_t> runSimulator(Engines& e) {
  auto io = nnremote::hal::makeRequest({e.built.input}, {e.built.outputBytes});
  auto outcome = e.simulator->execute(io->request, nnremote::hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  if (!outcome.ok()) return {};
  return nnremote::hal::fromMemory<uint8_t>(io->outputs[0], e.built.outputBytes);
}

// Both engines must agree before their speeds mean anything.
bool checkAgreement(Precision precision, const char* name) {
  Engines& e = enginesFor(precision);
  if (!e.simulator || !e.xnnpack) return false;
  const std::vector<float> ours = probabilities(runSimulator(e), precision);
  auto theirs = e.xnnpack->run(e.built.input);
  if (!theirs.ok() || ours.empty()) return false;
  const std::vector<float> reference = probabilities(*theirs, precision);
  float largest = 0;
  for (size_t i = 0; i < ours.size(); ++i) largest = std::max(largest, std::fabs(ours[i] - reference[i]));
  const auto top = [](const std::vector<float>& v) { return std::max_element(v.begin(), v.end()) - v.begin(); };
  std::printf("MobileNet v1 %s: top-1 class %ld (simulator) vs %ld (XNNPACK), largest probability difference %.3g\n",
              name, long(top(ours)), long(top(reference)), largest);
  return top(ours) == top(reference);
}

void simulator(benchmark::State& state, Precision precision) {
  Engines& e = enginesFor(precision);
  auto io = nnremote::hal::makeRequest({e.built.input}, {e.built.outputBytes});
  if (!e.simulator || !io.ok()) {
    state.SkipWithError("cannot prepare MobileNet v1 on the simulator");
    return;
  }
  for (auto _ : state) {
    auto outcome = e.simulator->execute(io->request, nnremote::hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    if (!outcome.ok()) state.SkipWithError(outcome.error().message.c_str());
    benchmark::DoNotOptimize(outcome);
  }
}

void xnnpack(benchmark::State& state, Precision precision) {
  Engines& e = enginesFor(precision);
  if (!e.xnnpack) {
    state.SkipWithError("cannot build MobileNet v1 on XNNPACK");
    return;
  }
  for (auto _ : state) {
    auto output = e.xnnpack->run(e.built.input);
    if (!output.ok()) state.SkipWithError(output.error().message.c_str());
    benchmark::DoNotOptimize(output);
  }
}

constexpr int kRepetitions = 3;
BENCHMARK_CAPTURE(simulator, float32, Precision::FLOAT32)
    ->Unit(benchmark::kMillisecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(xnnpack, float32, Precision::FLOAT32)
    ->Unit(benchmark::kMillisecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(simulator, quant8, Precision::QUANT8)
    ->Unit(benchmark::kMillisecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(xnnpack, quant8, Precision::QUANT8)
    ->Unit(benchmark::kMillisecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);

// Simulator / XNNPACK per precision, from the medians.
void printRatios(const std::map<std::string, double>& medians) {
  for (const char* precision : {"float32", "quant8"}) {
    const auto ours = medians.find(std::string("simulator/") + precision);
    const auto theirs = medians.find(std::string("xnnpack/") + precision);
    if (ours == medians.end() || theirs == medians.end() || theirs->second <= 0) continue;
    std::printf("MobileNet v1 %s (medians): simulator %.2f ms, XNNPACK %.2f ms, ratio %.2fx (target <= 1.5x)\n",
                precision, ours->second, theirs->second, ours->second / theirs->second);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  const bool agree = checkAgreement(Precision::FLOAT32, "float32") & checkAgreement(Precision::QUANT8, "quant8");
  if (!agree) std::printf("warning: the simulator and XNNPACK disagree; the times below compare different work\n");
  nnremote::benchmarks::MedianReporter reporter(printRatios);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return agree ? 0 : 1;
}
