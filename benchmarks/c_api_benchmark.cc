// The NNAPI C API's cost over the proxy it drives: a 1-operation model (ADD of two float32 [2])
// executed through ANeuralNetworksExecution_compute, and through the proxy driver's execute, on
// the same npu_emulator (started here, on a unix socket), side by side in one run. The C API
// case does what a program does per inference: create an execution, set its arguments, compute,
// free it. Prints C API / proxy from the medians (issue target: at most 1.1).
#include <android/NeuralNetworks.h>
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "drivers/sim/sim_device.h"
#include "benchmarks/median_reporter.h"
#include "emulator/emulator_server.h"
#include "hal/model_builder.h"
#include "testing/add_model.h"
#include "drivers/proxy/proxy_device.h"

namespace {

using namespace nnremote;

struct Fixture {
  std::unique_ptr<emulator::EmulatorServer> server;
  hal::SharedPreparedModel proxyPrepared;
  ANeuralNetworksCompilation* compilation = nullptr;
  ANeuralNetworksModel* model = nullptr;
};

Fixture& fixture() {
  static Fixture* f = [] {
    auto* made = new Fixture;
    const std::string address = "unix-abstract:nnremote-capi-bench-" + std::to_string(::getpid());
    made->server = std::move(emulator::EmulatorServer::start({sim::SimDevice::create(sim::edgeNpuConfig())}, address)).value();
    setenv("NNREMOTE_TARGETS", address.c_str(), 1);
    // The proxy on its own connection, as an nnremote C++ client has it.
    auto connection = proxy::Connection::connect(address);
    auto device = proxy::ProxyDevice::discover(*connection)->front();
    made->proxyPrepared = *device->prepareModel(testing::twoInputAddModel(),
                                                 hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                                 std::nullopt, {}, {}, {});
    // The same model through the C API, compiled for the same remote device.
    ANeuralNetworksModel_create(&made->model);
    uint32_t dims[1] = {2};
    ANeuralNetworksOperandType vector{ANEURALNETWORKS_TENSOR_FLOAT32, 1, dims, 0.0f, 0};
    ANeuralNetworksOperandType scalar{ANEURALNETWORKS_INT32, 0, nullptr, 0.0f, 0};
    ANeuralNetworksModel_addOperand(made->model, &vector);
    ANeuralNetworksModel_addOperand(made->model, &vector);
    ANeuralNetworksModel_addOperand(made->model, &scalar);
    ANeuralNetworksModel_addOperand(made->model, &vector);
    const int32_t none = ANEURALNETWORKS_FUSED_NONE;
    ANeuralNetworksModel_setOperandValue(made->model, 2, &none, sizeof none);
    const uint32_t inputs[3] = {0, 1, 2}, outputs[1] = {3}, modelInputs[2] = {0, 1};
    ANeuralNetworksModel_addOperation(made->model, ANEURALNETWORKS_ADD, 3, inputs, 1, outputs);
    ANeuralNetworksModel_identifyInputsAndOutputs(made->model, 2, modelInputs, 1, outputs);
    ANeuralNetworksModel_finish(made->model);
    ANeuralNetworksDevice* remote = nullptr;
    ANeuralNetworks_getDevice(0, &remote);  // the server's device comes before nnapi-reference
    const ANeuralNetworksDevice* devices[1] = {remote};
    ANeuralNetworksCompilation_createForDevices(made->model, devices, 1, &made->compilation);
    if (ANeuralNetworksCompilation_finish(made->compilation) != ANEURALNETWORKS_NO_ERROR) std::abort();
    return made;
  }();
  return *f;
}

void proxyExecute(benchmark::State& state) {
  const auto& prepared = fixture().proxyPrepared;
  float a[2] = {1, 2}, b[2] = {10, 20};
  for (auto _ : state) {
    auto io = hal::makeRequest({hal::toBytes<float>({a[0], a[1]}), hal::toBytes<float>({b[0], b[1]})}, {8});
    auto outcome = prepared->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    if (!outcome.ok()) state.SkipWithError(outcome.error().message.c_str());
    benchmark::DoNotOptimize(io->outputs[0]->data());
  }
}

void cApiCompute(benchmark::State& state) {
  ANeuralNetworksCompilation* compilation = fixture().compilation;
  float a[2] = {1, 2}, b[2] = {10, 20}, out[2];
  for (auto _ : state) {
    ANeuralNetworksExecution* execution = nullptr;
    ANeuralNetworksExecution_create(compilation, &execution);
    ANeuralNetworksExecution_setInput(execution, 0, nullptr, a, sizeof a);
    ANeuralNetworksExecution_setInput(execution, 1, nullptr, b, sizeof b);
    ANeuralNetworksExecution_setOutput(execution, 0, nullptr, out, sizeof out);
    if (ANeuralNetworksExecution_compute(execution) != ANEURALNETWORKS_NO_ERROR) state.SkipWithError("compute failed");
    ANeuralNetworksExecution_free(execution);
    benchmark::DoNotOptimize(out);
  }
}

constexpr int kRepetitions = 9;
BENCHMARK(proxyExecute)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);
BENCHMARK(cApiCompute)->Unit(benchmark::kMicrosecond)->Repetitions(kRepetitions)->ReportAggregatesOnly(true);

void printRatio(const std::map<std::string, double>& medians) {
  const auto proxy = medians.find("proxyExecute");
  const auto cApi = medians.find("cApiCompute");
  if (proxy == medians.end() || cApi == medians.end() || proxy->second <= 0) return;
  std::printf("1-operation model, medians: C API compute %.1f us, proxy execute %.1f us: %.3fx\n", cApi->second,
              proxy->second, cApi->second / proxy->second);
}

}  // namespace

int main(int argc, char** argv) { return nnremote::benchmarks::runInterleaved(argc, argv, printRatio); }
