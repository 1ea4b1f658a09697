// How much the timing model adds to functional execution, on MobileNet v1 1.0-224, two ways in
// one run: end to end (the same prepared model executed with MeasureTiming::NO and YES,
// medians of repetitions), and directly (the host time spent inside the timing model during a
// timed execution, against that execution's total). Target: under 5%.
//
//   bazel run //benchmarks:timing_overhead_benchmark
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>

#include "drivers/sim/graph_executor.h"
#include "drivers/sim/sim_device.h"
#include "benchmarks/median_reporter.h"
#include "hal/model_builder.h"
#include "tools/models/mobilenet_v1.h"

namespace {

using nnremote::hal::MeasureTiming;
using nnremote::tools::Precision;

void executeMobileNet(benchmark::State& state, Precision precision, MeasureTiming measure) {
  const auto built = nnremote::tools::buildMobileNetV1(precision);
  auto device = nnremote::sim::SimDevice::create(nnremote::sim::edgeNpuConfig());
  auto prepared = device->prepareModel(built.model, nnremote::hal::ExecutionPreference::SUSTAINED_SPEED,
                                       nnremote::hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  auto io = nnremote::hal::makeRequest({built.input}, built.outputSizes);
  if (!prepared.ok() || !io.ok()) {
    state.SkipWithError("cannot prepare MobileNet v1");
    return;
  }
  for (auto _ : state) {
    auto outcome = (*prepared)->execute(io->request, measure, std::nullopt, std::nullopt);
    if (!outcome.ok()) state.SkipWithError(outcome.error().message.c_str());
    benchmark::DoNotOptimize(outcome);
  }
}

// The graph executor directly, reporting the share of host time the timing model took.
void timingModelShare(benchmark::State& state, Precision precision) {
  const auto built = nnremote::tools::buildMobileNetV1(precision);
  auto io = nnremote::hal::makeRequest({built.input}, built.outputSizes);
  const auto npu = nnremote::sim::edgeNpuConfig();
  // Kept across executions, as a prepared model keeps them (XNNPACK's packed weights).
  std::unique_ptr<nnremote::sim::OperationState[]> states(
      new nnremote::sim::OperationState[nnremote::sim::operationStateCount(built.model)]);
  nnremote::sim::ExecutionOptions options;
  options.withTiming = true;
  options.states = states.get();
  double modelNs = 0, totalNs = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    auto report = nnremote::sim::executeGraph(built.model, io->request, npu, options);
    totalNs += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
    if (!report.ok()) state.SkipWithError(report.error().message.c_str());
    modelNs += double(report->timingModelNanoseconds);
  }
  state.counters["timing_model_us"] = modelNs / 1e3 / double(state.iterations());
  state.counters["timing_model_share_percent"] = 100.0 * modelNs / totalNs;
}

constexpr int kRepetitions = 5;
BENCHMARK_CAPTURE(executeMobileNet, float32_functional, Precision::FLOAT32, MeasureTiming::NO)
    ->Unit(benchmark::kMillisecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(executeMobileNet, float32_timed, Precision::FLOAT32, MeasureTiming::YES)
    ->Unit(benchmark::kMillisecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(executeMobileNet, quant8_functional, Precision::QUANT8, MeasureTiming::NO)
    ->Unit(benchmark::kMillisecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(executeMobileNet, quant8_timed, Precision::QUANT8, MeasureTiming::YES)
    ->Unit(benchmark::kMillisecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK_CAPTURE(timingModelShare, float32, Precision::FLOAT32)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(timingModelShare, quant8, Precision::QUANT8)->Unit(benchmark::kMillisecond);

// Timed / functional per precision, from the medians.
void printOverheads(const std::map<std::string, double>& medians) {
  for (const char* precision : {"float32", "quant8"}) {
    const std::string base = std::string("executeMobileNet/") + precision;
    const auto functional = medians.find(base + "_functional");
    const auto timed = medians.find(base + "_timed");
    if (functional == medians.end() || timed == medians.end() || functional->second <= 0) continue;
    std::printf("MobileNet v1 %s end to end (medians): timed %.2f ms vs functional %.2f ms, %+.2f%%\n", precision,
                timed->second, functional->second, 100.0 * (timed->second / functional->second - 1.0));
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  nnremote::benchmarks::MedianReporter reporter(printOverheads);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
