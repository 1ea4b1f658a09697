// The simulator's functional path against XNNPACK on the same networks (same weights, same
// input), float32 and quant8, single-threaded, side by side in one run: MobileNet v1 1.0-224 and
// single layers of the other hot kernels (pooling, ADD, FULLY_CONNECTED). Before timing, it
// checks that both give the same answer: the same top-1 class for MobileNet, and for every
// workload the largest output difference within the CTS tolerance (quant8: 1 unit, 3 for
// MobileNet as the CTS allows; float32: 1e-4).
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

#include "drivers/sim/sim_device.h"
#include "benchmarks/hot_kernel_models.h"
#include "benchmarks/median_reporter.h"
#include "benchmarks/xnnpack_network.h"
#include "hal/model_builder.h"
#include "tools/models/mobilenet_v1.h"

namespace {

using nnremote::tools::Precision;

struct Workload {
  std::string name;  // "mobilenet_v1/float32", "add_56x56x256/quant8", ...
  Precision precision;
  bool classifier;  // compare top-1 classes too
  nnremote::tools::BuiltModel (*build)(Precision);
};

std::vector<Workload> workloads() {
  std::vector<Workload> all;
  for (Precision precision : {Precision::FLOAT32, Precision::QUANT8}) {
    const std::string suffix = precision == Precision::FLOAT32 ? "/float32" : "/quant8";
    all.push_back({"mobilenet_v1" + suffix, precision, true, &nnremote::tools::buildMobileNetV1});
    for (const auto& model : nnremote::benchmarks::hotKernelModels()) {
      all.push_back({model.name + suffix, precision, false, model.build});
    }
  }
  return all;
}

// Output values as real numbers (quant8 as raw units, so tolerances are in units).
std::vector<float> values(const std::vector<uint8_t>& bytes, Precision precision) {
  std::vector<float> result;
  if (precision == Precision::QUANT8) {
    for (uint8_t q : bytes) result.push_back(q);
  } else {
    result.resize(bytes.size() / sizeof(float));
    std::memcpy(result.data(), bytes.data(), result.size() * sizeof(float));
  }
  return result;
}

struct Engines {
  nnremote::tools::BuiltModel built;
  nnremote::hal::SharedPreparedModel simulator;
  std::unique_ptr<nnremote::benchmarks::XnnpackNetwork> xnnpack;
};

Engines& enginesFor(const Workload& workload) {
  static std::map<std::string, Engines> engines;
  auto [it, inserted] = engines.try_emplace(workload.name);
  if (!inserted) return it->second;
  Engines& e = it->second;
  e.built = workload.build(workload.precision);
  auto device = nnremote::sim::SimDevice::create(nnremote::sim::edgeNpuConfig());
  auto prepared = device->prepareModel(e.built.model, nnremote::hal::ExecutionPreference::SUSTAINED_SPEED,
                                       nnremote::hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  if (prepared.ok()) {
    e.simulator = *prepared;
  } else {
    std::fprintf(stderr, "%s on the simulator: %s\n", workload.name.c_str(), prepared.error().message.c_str());
  }
  auto network = nnremote::benchmarks::XnnpackNetwork::create(e.built.model);
  if (network.ok()) {
    e.xnnpack = std::move(*network);
  } else {
    std::fprintf(stderr, "%s on XNNPACK: %s\n", workload.name.c_str(), network.error().message.c_str());
  }
  return e;
}

// The simulator's output for the model's deterministic input.
std::vector<uint8_t> runSimulator(Engines& e) {
  auto io = nnremote::hal::makeRequest({e.built.input}, e.built.outputSizes);
  auto outcome = e.simulator->execute(io->request, nnremote::hal::MeasureTiming::NO, std::nullopt, std::nullopt);
  if (!outcome.ok()) return {};
  return nnremote::hal::fromMemory<uint8_t>(io->outputs[0], e.built.outputSizes[0]);
}

// Both engines must agree before their speeds mean anything.
bool checkAgreement(const Workload& workload) {
  Engines& e = enginesFor(workload);
  if (!e.simulator || !e.xnnpack) return false;
  const std::vector<float> ours = values(runSimulator(e), workload.precision);
  auto theirs = e.xnnpack->run(e.built.input);
  if (!theirs.ok() || ours.empty()) return false;
  const std::vector<float> reference = values(*theirs, workload.precision);
  if (ours.size() != reference.size()) return false;
  float largest = 0;
  for (size_t i = 0; i < ours.size(); ++i) largest = std::max(largest, std::fabs(ours[i] - reference[i]));
  const bool quantized = workload.precision == Precision::QUANT8;
  const float tolerance = quantized ? (workload.classifier ? 3.0f : 1.0f) : 1e-4f;
  bool agree = largest <= tolerance;
  std::printf("%s: largest output difference %.3g%s", workload.name.c_str(), largest, quantized ? " units" : "");
  if (workload.classifier) {
    const auto top = [](const std::vector<float>& v) { return std::max_element(v.begin(), v.end()) - v.begin(); };
    std::printf(", top-1 class %ld (simulator) vs %ld (XNNPACK)", long(top(ours)), long(top(reference)));
    agree = agree && top(ours) == top(reference);
  }
  std::printf("%s\n", agree ? "" : "  <-- DISAGREE");
  return agree;
}

void simulator(benchmark::State& state, const Workload& workload) {
  Engines& e = enginesFor(workload);
  auto io = nnremote::hal::makeRequest({e.built.input}, e.built.outputSizes);
  if (!e.simulator || !io.ok()) {
    state.SkipWithError("cannot prepare the model on the simulator");
    return;
  }
  for (auto _ : state) {
    auto outcome = e.simulator->execute(io->request, nnremote::hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    if (!outcome.ok()) state.SkipWithError(outcome.error().message.c_str());
    benchmark::DoNotOptimize(outcome);
  }
}

void xnnpack(benchmark::State& state, const Workload& workload) {
  Engines& e = enginesFor(workload);
  if (!e.xnnpack) {
    state.SkipWithError("cannot build the model on XNNPACK");
    return;
  }
  for (auto _ : state) {
    auto output = e.xnnpack->run(e.built.input);
    if (!output.ok()) state.SkipWithError(output.error().message.c_str());
    benchmark::DoNotOptimize(output);
  }
}

// Simulator / XNNPACK per workload, from the medians.
void printRatios(const std::vector<Workload>& all, const std::map<std::string, double>& medians) {
  for (const Workload& workload : all) {
    const auto ours = medians.find("simulator/" + workload.name);
    const auto theirs = medians.find("xnnpack/" + workload.name);
    if (ours == medians.end() || theirs == medians.end() || theirs->second <= 0) continue;
    std::printf("%-44s simulator %9.3f ms, XNNPACK %9.3f ms, ratio %.2fx (target <= 1.5x)\n", workload.name.c_str(),
                ours->second, theirs->second, ours->second / theirs->second);
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  static const std::vector<Workload> all = workloads();
  bool agree = true;
  for (const Workload& workload : all) agree = checkAgreement(workload) && agree;
  if (!agree) std::printf("warning: the simulator and XNNPACK disagree; the times below compare different work\n");
  constexpr int kRepetitions = 3;
  for (const Workload& workload : all) {
    for (auto [engine, run] : {std::pair{"simulator/", &simulator}, std::pair{"xnnpack/", &xnnpack}}) {
      benchmark::RegisterBenchmark((engine + workload.name).c_str(), run, workload)
          ->Unit(benchmark::kMillisecond)
          ->Repetitions(kRepetitions)
          ->ReportAggregatesOnly(true);
    }
  }
  nnremote::benchmarks::MedianReporter reporter(
      [](const std::map<std::string, double>& medians) { printRatios(all, medians); });
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return agree ? 0 : 1;
}
