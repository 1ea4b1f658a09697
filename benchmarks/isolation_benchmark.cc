// What backend isolation costs (docs/backends.md#isolation): the same library (the simulator's
// sim_backend.so:large128) served by two real npu_emulator processes, one loading it in process
// (--backend-in-process), one in a backend host; a client drives both through the proxy driver,
// side by side in one run, the cases' repetitions interleaved at random.
//  - sync execute of a 1-operation model (ADD of two float32 [2]): issue target isolated /
//    in process at most 1.3;
//  - the same ADD over float32 [4M]: two 16 MiB inputs and a 16 MiB output in shared memory.
//    Were the pools copied on the hop to the child (48 MiB per execution), the isolated case
//    would take milliseconds longer; the ratio shows they are not. large128 moves 256 bytes a
//    cycle, so the ADD takes less time on the simulated device than on the host: the loop runs
//    at the host's pace, copies included. (On edge16 it takes ~17 ms of device time, and once
//    queue_depth executions are ahead of the clock each waits for the device: that would hide
//    the copies.)
//  - the 1-operation model on a burst (through the same-host shared-memory queue): no target;
//    shows what the hop adds to the fastest path a client has;
//  - a bare round trip between two processes on one CPU (benchmarks/process_ping_pong.h): the
//    floor of the hop on this machine, which no isolated call can beat; the summary prints the
//    ratio it alone would give.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "benchmarks/median_reporter.h"
#include "benchmarks/process_ping_pong.h"
#include "benchmarks/process_stats.h"
#include "drivers/proxy/proxy_device.h"
#include "hal/memory.h"
#include "hal/model_builder.h"
#include "testing/emulator_process.h"

namespace {

using namespace nnremote;

constexpr uint32_t kLarge = 4u << 20;  // elements: 16 MiB of float32

hal::Model addModel(uint32_t elements) {
  hal::ModelBuilder b;
  const uint32_t a = b.addInput(hal::OperandType::TENSOR_FLOAT32, {elements});
  const uint32_t c = b.addInput(hal::OperandType::TENSOR_FLOAT32, {elements});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {elements});
  b.addOperation(hal::OperationType::ADD, {a, c, b.addInt32(0)}, {out});
  return b.build();
}

// One server and what a client keeps of it: the small and the large model prepared, and a
// request for each (the large one's pools in shared memory).
struct Served {
  std::unique_ptr<testing::EmulatorProcess> process;
  hal::SharedPreparedModel small, large;
  hal::SharedBurst smallBurst;
  hal::RequestWithMemories smallIo, largeIo;
};

Served serve(const std::string& name, bool isolated) {
  Served served;
  const std::string address = testing::EmulatorProcess::uniqueAddress(name);
  std::vector<std::string> flags = {"--backend=drivers/sim/sim_backend.so:large128"};
  if (!isolated) flags.push_back("--backend-in-process");
  served.process = std::make_unique<testing::EmulatorProcess>(address, flags);
  auto connection = proxy::Connection::connect(address);
  if (!connection.ok()) std::abort();
  auto device = proxy::ProxyDevice::discover(*connection)->front();
  auto prepare = [&](uint32_t elements) {
    auto prepared = device->prepareModel(addModel(elements), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                         hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    if (!prepared.ok()) {
      std::fprintf(stderr, "%s\n", prepared.error().message.c_str());
      std::abort();
    }
    return *prepared;
  };
  served.small = prepare(2);
  auto burst = served.small->configureExecutionBurst();
  if (!burst.ok()) {
    std::fprintf(stderr, "%s\n", burst.error().message.c_str());
    std::abort();
  }
  served.smallBurst = *burst;
  served.large = prepare(kLarge);
  served.smallIo = *hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  const std::vector<uint8_t> large(size_t{kLarge} * sizeof(float), 0);
  served.largeIo = *hal::makeRequest({large, large}, {large.size()}, hal::createSharedMemory);
  return served;
}

// Destroyed at exit, which stops the servers.
Served& inProcess() {
  static Served served = serve("bench-in-process", false);
  return served;
}
Served& isolated() {
  static Served served = serve("bench-isolated", true);
  return served;
}

// `executor`: a prepared model or a burst.
template <typename Executor>
void run(benchmark::State& state, const Executor& executor, const hal::RequestWithMemories& io) {
  for (auto _ : state) {
    auto outcome = executor->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    if (!outcome.ok()) state.SkipWithError(outcome.error().message.c_str());
  }
}

// Started by main before any thread (it forks).
std::unique_ptr<benchmarks::ProcessPingPong> pingPong;

void processRoundTrip(benchmark::State& state) {
  if (pingPong == nullptr) {
    state.SkipWithError("could not fork the other side");
    return;
  }
  const auto onOneCpu = pingPong->keepToOneCpu();
  for (auto _ : state) {
    if (!pingPong->roundTrip()) state.SkipWithError("the other side died");
  }
}

void syncInProcess(benchmark::State& state) { run(state, inProcess().small, inProcess().smallIo); }
void syncIsolated(benchmark::State& state) { run(state, isolated().small, isolated().smallIo); }
void burstInProcess(benchmark::State& state) { run(state, inProcess().smallBurst, inProcess().smallIo); }
void burstIsolated(benchmark::State& state) { run(state, isolated().smallBurst, isolated().smallIo); }
void shared16MiBInProcess(benchmark::State& state) { run(state, inProcess().large, inProcess().largeIo); }
void shared16MiBIsolated(benchmark::State& state) { run(state, isolated().large, isolated().largeIo); }

constexpr int kRepetitions = 9;
BENCHMARK(syncInProcess)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK(syncIsolated)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK(burstInProcess)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK(burstIsolated)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK(shared16MiBInProcess)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK(shared16MiBIsolated)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK(processRoundTrip)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);

void printRatios(const std::map<std::string, double>& medians) {
  for (const auto& [name, isolatedCase, inProcessCase] :
       {std::tuple{"1-operation model, sync", "syncIsolated", "syncInProcess"},
        std::tuple{"1-operation model, burst", "burstIsolated", "burstInProcess"},
        std::tuple{"ADD over 16 MiB shared-memory inputs", "shared16MiBIsolated", "shared16MiBInProcess"}}) {
    const auto a = medians.find(isolatedCase), b = medians.find(inProcessCase);
    if (a == medians.end() || b == medians.end() || b->second <= 0) continue;
    std::printf("%s, medians: isolated %.1f us, in process %.1f us: %.3fx\n", name, a->second, b->second,
                a->second / b->second);
  }
  const auto floor = medians.find("processRoundTrip"), inProcess = medians.find("syncInProcess");
  if (floor != medians.end() && inProcess != medians.end() && inProcess->second > 0) {
    std::printf(
        "the hop's floor, a bare round trip between two processes on one CPU: %.1f us; "
        "the sync case could not beat %.3fx here\n",
        floor->second, (inProcess->second + floor->second) / inProcess->second);
  }
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nnremote::benchmarks;
  pingPong = ProcessPingPong::start();
  const MachineCpuTicks before = machineCpuTicks();
  const int status = runInterleaved(argc, argv, printRatios);
  // On a virtual machine, a run in which the host took much of the CPU has slow stretches that
  // land on one case more than the other: a ratio from such a run says less.
  std::printf("stolen by the host during the run: %.1f%% of the machine's CPU time\n",
              100 * stealShare(before, machineCpuTicks()));
  return status;
}
