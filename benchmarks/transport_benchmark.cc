// Round trips through nnremote against raw gRPC on the same kind of socket, side by side in one
// run. Each case reports p50 and p99 latency; the end of the output compares them with the
// targets.
//
//   bazel run //benchmarks:transport_benchmark
//
// Cases:
//  1. raw gRPC unary and bidirectional ping-pong with a 16-byte payload (the baselines), on the
//     synchronous API and on the callback API that npu_emulator serves with;
//  2. a synchronous execution of a 1-operation model through the proxy driver (target <= 1.25x
//     raw unary);
//  3. a burst execution of the same model over its gRPC stream (target <= 1.15x raw bidi);
//  4. the same burst through the same-host shared-memory queue (target: p50 <= 20 us);
//  5. 1 MiB and 16 MiB inputs to a RELU via shared memory against via bytes (target: shared
//     memory within 2x of memcpy + one control round trip, and >= 10x faster than bytes at
//     16 MiB). RELU reads and writes the tensor once each, so the report also compares with the
//     same execution in process plus one round trip: what the transport itself adds;
//  6. cases 2 and 3 again, each call taken in turn with its raw baseline, so that both see the
//     same moment of a noisy host (the ratios printed last), against raw gRPC on the
//     synchronous API (the targets) and on the callback API that npu_emulator serves with.
// The servers run each in a process of their own, as an application and npu_emulator do in use
// (--servers=own-process, the default), or all in the benchmark's process
// (--servers=same-process).
// Each case also reports what one round trip costs the whole process: cpu_us and context
// switches, steadier than latency on a busy virtual machine.
#include <benchmark/benchmark.h>
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "drivers/sim/sim_device.h"
#include "benchmarks/process_stats.h"
#include "benchmarks/echo.grpc.pb.h"
#include "emulator/emulator_server.h"
#include "emulator/simulated_npus.h"
#include "hal/model_builder.h"
#include "wire/conversions.h"
#include "drivers/proxy/proxy_device.h"
#include "drivers/proxy/proxy_prepared_model.h"
#include "drivers/proxy/stubs.h"

namespace {

using namespace nnremote;  // NOLINT: a benchmark file
using Clock = std::chrono::steady_clock;

class EchoService final : public benchmarks::Echo::Service {
  grpc::Status Ping(grpc::ServerContext*, const benchmarks::Payload* request, benchmarks::Payload* reply) override {
    *reply = *request;
    return grpc::Status::OK;
  }
  grpc::Status PingStream(grpc::ServerContext*,
                          grpc::ServerReaderWriter<benchmarks::Payload, benchmarks::Payload>* stream) override {
    benchmarks::Payload payload;
    while (stream->Read(&payload)) stream->Write(payload);
    return grpc::Status::OK;
  }
};

// The same echo on gRPC's callback API, answered inline on gRPC's own thread: what the API
// costs by itself, next to the synchronous baseline above.
class CallbackEchoService final : public benchmarks::Echo::CallbackService {
  grpc::ServerUnaryReactor* Ping(grpc::CallbackServerContext* context, const benchmarks::Payload* request,
                                 benchmarks::Payload* reply) override {
    *reply = *request;
    auto* reactor = context->DefaultReactor();
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }
  grpc::ServerBidiReactor<benchmarks::Payload, benchmarks::Payload>* PingStream(grpc::CallbackServerContext*) override {
    class Echoer final : public grpc::ServerBidiReactor<benchmarks::Payload, benchmarks::Payload> {
     public:
      Echoer() { StartRead(&payload_); }
      void OnReadDone(bool ok) override {
        if (!ok) return Finish(grpc::Status::OK);
        StartWrite(&payload_);
      }
      void OnWriteDone(bool ok) override {
        if (!ok) return Finish(grpc::Status::OK);
        StartRead(&payload_);
      }
      void OnDone() override { delete this; }

     private:
      benchmarks::Payload payload_;
    };
    return new Echoer();
  }
};

// Where the servers of all cases listen: unix sockets (the same-host transport), named after the
// benchmark's process so that two runs at once do not meet.
struct Addresses {
  std::string echo, callbackEcho, emulator;
  static Addresses of(pid_t owner) {
    const std::string token = std::to_string(owner);
    return {"unix-abstract:nnremote-bench-echo-" + token, "unix-abstract:nnremote-bench-cb-echo-" + token,
            "unix-abstract:nnremote-bench-" + token};
  }
};

// The servers of all cases: the two raw echo servers, and the emulator as npu_emulator serves
// its device (the simulator behind its scheduler).
enum class ServerKind { kSyncEcho, kCallbackEcho, kEmulator };
constexpr ServerKind kServerKinds[] = {ServerKind::kSyncEcho, ServerKind::kCallbackEcho, ServerKind::kEmulator};

struct Server {
  EchoService echo;
  CallbackEchoService callbackEcho;
  std::unique_ptr<grpc::Server> grpcServer;
  std::unique_ptr<emulator::EmulatorServer> emulator;

  Server(ServerKind kind, const Addresses& at) {
    if (kind == ServerKind::kEmulator) {
      emulator = std::move(
          emulator::EmulatorServer::start({emulator::createSimulatedNpu(sim::edgeNpuConfig())}, at.emulator).value());
      return;
    }
    grpc::ServerBuilder builder;
    if (kind == ServerKind::kSyncEcho) {
      builder.AddListeningPort(at.echo, grpc::InsecureServerCredentials());
      builder.RegisterService(&echo);
    } else {
      builder.AddListeningPort(at.callbackEcho, grpc::InsecureServerCredentials());
      builder.RegisterService(&callbackEcho);
    }
    grpcServer = builder.BuildAndStart();
  }
};

// With --servers=own-process (the default) each server runs in a child process of its own, as
// an application and npu_emulator do in use. gRPC's threads that wait for work also poll the
// sockets of their whole process, so a server that shares a process with another server, or
// with the client, takes some of their traffic and hands it over with a wake-up. With
// --servers=same-process they all share this process.
std::vector<pid_t>& serverProcesses() {
  static std::vector<pid_t> pids;
  return pids;
}

// Forks a child that holds the server of `kind`, before this process touches gRPC, and waits
// (at most 30 s) until it listens. The child ends when this process does.
bool startServerProcess(ServerKind kind, const Addresses& at) {
  int ready[2];
  if (::pipe(ready) != 0) return false;
  const pid_t parent = ::getpid();
  const pid_t child = ::fork();
  if (child < 0) return false;
  if (child == 0) {
    ::close(ready[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(0);
    Server server(kind, at);
    const char byte = 1;
    (void)!::write(ready[1], &byte, 1);
    for (;;) ::pause();  // until the benchmark ends (SIGTERM)
  }
  ::close(ready[1]);
  serverProcesses().push_back(child);
  pollfd wait{ready[0], POLLIN, 0};
  char byte = 0;
  const bool started = ::poll(&wait, 1, 30000) == 1 && ::read(ready[0], &byte, 1) == 1;
  ::close(ready[0]);
  return started;
}

void stopServerProcesses() {
  for (pid_t pid : serverProcesses()) ::kill(pid, SIGTERM);
  for (pid_t pid : serverProcesses()) ::waitpid(pid, nullptr, 0);
  serverProcesses().clear();
}

// The client side shared by all cases: stubs and proxy connections to the servers.
struct Fixture {
  std::vector<std::unique_ptr<Server>> servers;  // only with --servers=same-process
  std::shared_ptr<benchmarks::Echo::Stub> echoStub;
  std::shared_ptr<benchmarks::Echo::Stub> callbackEchoStub;
  std::shared_ptr<proxy::Connection> connection;
  std::shared_ptr<proxy::Connection> bytesConnection;  // never uses shared memory
  std::shared_ptr<proxy::Connection> streamBurstConnection;  // bursts on the gRPC stream only

  Fixture() {
    const Addresses at = Addresses::of(::getpid());
    if (serverProcesses().empty()) {
      for (ServerKind kind : kServerKinds) servers.push_back(std::make_unique<Server>(kind, at));
    }
    echoStub = benchmarks::Echo::NewStub(grpc::CreateChannel(at.echo, grpc::InsecureChannelCredentials()));
    callbackEchoStub = benchmarks::Echo::NewStub(grpc::CreateChannel(at.callbackEcho, grpc::InsecureChannelCredentials()));
    connection = *proxy::Connection::connect(at.emulator);
    proxy::ConnectionOptions bytesOnly;
    bytesOnly.useSharedMemory = false;
    bytesConnection = *proxy::Connection::connect(at.emulator, bytesOnly);
    proxy::ConnectionOptions streamBursts;
    streamBursts.useSharedMemoryBursts = false;
    streamBurstConnection = *proxy::Connection::connect(at.emulator, streamBursts);
  }
};

Fixture& fixture() {
  static Fixture* const instance = new Fixture();
  return *instance;
}

// CPU time and context switches of the processes taking part: this one and the servers', with
// all their threads (client, server and gRPC's).
struct ProcessUsage {
  double cpuUs = 0;
  double contextSwitches = 0;
  static ProcessUsage now() {
    rusage usage{};
    ::getrusage(RUSAGE_SELF, &usage);
    auto us = [](const timeval& t) { return t.tv_sec * 1e6 + t.tv_usec; };
    ProcessUsage total{us(usage.ru_utime) + us(usage.ru_stime), static_cast<double>(usage.ru_nvcsw + usage.ru_nivcsw)};
    for (pid_t pid : serverProcesses()) {
      total.cpuUs += benchmarks::processCpuSeconds(pid) * 1e6;
      total.contextSwitches += benchmarks::processContextSwitches(pid);
    }
    return total;
  }
};

// Records per-iteration latencies and reports p50/p99 in microseconds, and what one round trip
// costs the whole process in CPU and context switches. Those two do not depend on how busy the
// host is, so they compare cases more steadily than latency on a noisy machine.
class Latencies {
 public:
  Latencies() : start_(ProcessUsage::now()) {}
  void add(Clock::duration d) { samples_.push_back(std::chrono::duration<double, std::micro>(d).count()); }
  void report(benchmark::State& state) {
    if (samples_.empty()) return;
    const ProcessUsage end = ProcessUsage::now();
    const double n = static_cast<double>(samples_.size());
    state.counters["cpu_us"] = (end.cpuUs - start_.cpuUs) / n;
    state.counters["switches"] = (end.contextSwitches - start_.contextSwitches) / n;
    reportPercentiles(state, "");
  }
  // p50 and p99 only, as `<prefix>p50_us` and `<prefix>p99_us`.
  void reportPercentiles(benchmark::State& state, const std::string& prefix) {
    if (samples_.empty()) return;
    std::sort(samples_.begin(), samples_.end());
    state.counters[prefix + "p50_us"] = samples_[samples_.size() / 2];
    state.counters[prefix + "p99_us"] = samples_[std::min(samples_.size() - 1, samples_.size() * 99 / 100)];
  }

 private:
  ProcessUsage start_;
  std::vector<double> samples_;
};

void rawUnary(benchmark::State& state, bool callback) {
  auto& stub = callback ? fixture().callbackEchoStub : fixture().echoStub;
  benchmarks::Payload request, reply;
  request.set_data(std::string(16, 'x'));
  Latencies latencies;
  for (auto _ : state) {
    const auto start = Clock::now();
    grpc::ClientContext context;
    if (!stub->Ping(&context, request, &reply).ok()) state.SkipWithError("ping failed");
    latencies.add(Clock::now() - start);
  }
  latencies.report(state);
}

void rawBidi(benchmark::State& state, bool callback) {
  grpc::ClientContext context;
  auto stream = (callback ? fixture().callbackEchoStub : fixture().echoStub)->PingStream(&context);
  benchmarks::Payload request, reply;
  request.set_data(std::string(16, 'x'));
  Latencies latencies;
  for (auto _ : state) {
    const auto start = Clock::now();
    if (!stream->Write(request) || !stream->Read(&reply)) state.SkipWithError("stream failed");
    latencies.add(Clock::now() - start);
  }
  stream->WritesDone();
  (void)stream->Finish();
  latencies.report(state);
}

// RELU of `elements` floats: one operation, and the cheapest way to move a tensor through.
hal::SharedPreparedModel prepareRelu(uint32_t elements, const std::shared_ptr<proxy::Connection>& connection) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(hal::OperandType::TENSOR_FLOAT32, {elements});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {elements});
  b.addOperation(hal::OperationType::RELU, {in}, {out});
  auto device = proxy::ProxyDevice::discover(connection)->front();
  return *device->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                               hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
}

hal::Request requestFor(const hal::SharedMemory& in, const hal::SharedMemory& out) {
  hal::Request request;
  const uint32_t bytes = static_cast<uint32_t>(in->size());
  request.inputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 0, 0, bytes, 0}, {}}};
  request.outputs = {{hal::Request::Argument::LifeTime::POOL, {nullptr, 1, 0, bytes, 0}, {}}};
  request.pools = {in, out};
  return request;
}

// A trivial RPC on the emulator's own server, to separate server overhead from execution.
void emulatorTrivialRpc(benchmark::State& state) {
  wire::GetDeviceInfoRequest request;
  request.set_device_name("nnremote-edge16");
  Latencies latencies;
  for (auto _ : state) {
    const auto start = Clock::now();
    grpc::ClientContext context;
    wire::DeviceInfo info;
    (void)fixture().connection->stub()->GetDeviceInfo(&context, request, &info);
    latencies.add(Clock::now() - start);
  }
  latencies.report(state);
}

// The same execution in process: what the simulator itself costs per call (state.range(0) = 0),
// and with the scheduler in front of it, as the emulator serves it (1).
void inProcessExecute(benchmark::State& state) {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(hal::OperandType::TENSOR_FLOAT32, {4});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {4});
  b.addOperation(hal::OperationType::RELU, {in}, {out});
  const hal::SharedDevice device = state.range(0) == 0 ? hal::SharedDevice(sim::SimDevice::create(sim::edgeNpuConfig()))
                                                       : emulator::createSimulatedNpu(sim::edgeNpuConfig());
  auto prepared = *device->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                        hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  auto io = *hal::makeRequest({hal::toBytes<float>({1, -2, 3, -4})}, {16});
  Latencies latencies;
  for (auto _ : state) {
    const auto start = Clock::now();
    benchmark::DoNotOptimize(prepared->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt));
    latencies.add(Clock::now() - start);
  }
  latencies.report(state);
}

void proxySyncExecute(benchmark::State& state) {
  auto prepared = prepareRelu(4, fixture().connection);
  auto io = *hal::makeRequest({hal::toBytes<float>({1, -2, 3, -4})}, {16});
  Latencies latencies;
  for (auto _ : state) {
    const auto start = Clock::now();
    if (!prepared->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok()) {
      state.SkipWithError("execute failed");
    }
    latencies.add(Clock::now() - start);
  }
  latencies.report(state);
}

// On the gRPC stream (`sharedQueue` false) or through the same-host shared-memory queue.
void proxyBurstExecute(benchmark::State& state, bool sharedQueue) {
  auto prepared = prepareRelu(4, sharedQueue ? fixture().connection : fixture().streamBurstConnection);
  auto burst = *prepared->configureExecutionBurst();
  auto io = *hal::makeRequest({hal::toBytes<float>({1, -2, 3, -4})}, {16});
  Latencies latencies;
  for (auto _ : state) {
    const auto start = Clock::now();
    if (!burst->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok()) {
      state.SkipWithError("burst failed");
    }
    latencies.add(Clock::now() - start);
  }
  latencies.report(state);
}

// Our call and its raw gRPC baseline taken in turn, one of each per iteration, so that both see
// the same moment of a noisy host; the separate cases above each run for a second or more, and
// a virtual machine's round-trip time can drift by a third between them. Reports ours as
// p50_us/p99_us and the baseline as raw_p50_us/raw_p99_us.
template <typename Ours, typename Raw>
void interleaved(benchmark::State& state, Ours ours, Raw raw) {
  Latencies oursLatencies, rawLatencies;
  for (auto _ : state) {
    auto start = Clock::now();
    if (!raw()) state.SkipWithError("raw call failed");
    rawLatencies.add(Clock::now() - start);
    start = Clock::now();
    if (!ours()) state.SkipWithError("call failed");
    oursLatencies.add(Clock::now() - start);
  }
  oursLatencies.reportPercentiles(state, "");
  rawLatencies.reportPercentiles(state, "raw_");
}

// `callback`: the raw baseline on gRPC's callback API, as npu_emulator serves, rather than on
// the synchronous one; the difference is what the API costs by itself.
void syncExecuteAndRawUnary(benchmark::State& state, bool callback) {
  auto prepared = prepareRelu(4, fixture().connection);
  auto io = *hal::makeRequest({hal::toBytes<float>({1, -2, 3, -4})}, {16});
  auto& stub = callback ? fixture().callbackEchoStub : fixture().echoStub;
  benchmarks::Payload request, reply;
  request.set_data(std::string(16, 'x'));
  interleaved(
      state, [&] { return prepared->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok(); },
      [&] {
        grpc::ClientContext context;
        return stub->Ping(&context, request, &reply).ok();
      });
}

void burstExecuteAndRawBidi(benchmark::State& state, bool callback) {
  auto prepared = prepareRelu(4, fixture().streamBurstConnection);
  auto burst = *prepared->configureExecutionBurst();
  auto io = *hal::makeRequest({hal::toBytes<float>({1, -2, 3, -4})}, {16});
  grpc::ClientContext context;
  auto stream = (callback ? fixture().callbackEchoStub : fixture().echoStub)->PingStream(&context);
  benchmarks::Payload request, reply;
  request.set_data(std::string(16, 'x'));
  interleaved(
      state, [&] { return burst->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok(); },
      [&] { return stream->Write(request) && stream->Read(&reply); });
  stream->WritesDone();
  (void)stream->Finish();
}

// The burst's wire messages sent by a raw gRPC client, with the raw callback-API echo taken in
// turn: what the server side of a burst costs without the proxy driver's own work.
void rawClientBurstAndRawCallbackBidi(benchmark::State& state) {
  const auto& connection = fixture().streamBurstConnection;
  auto prepared = prepareRelu(4, connection);
  const auto where = std::static_pointer_cast<const proxy::ProxyPreparedModel>(prepared)->current();
  if (!where.ok()) return state.SkipWithError("no session");
  auto io = *hal::makeRequest({hal::toBytes<float>({1, -2, 3, -4})}, {16});
  grpc::ClientContext burstContext;
  auto burst = connection->waitsStub()->Burst(&burstContext);
  wire::BurstRequest open;
  open.mutable_open()->set_session_id(where->first.id);
  open.mutable_open()->set_prepared_model_id(where->second);
  if (!burst->Write(open)) return state.SkipWithError("burst open failed");
  wire::BurstRequest execute;
  *execute.mutable_execute()->mutable_request() = *wire::toWire(io.request);
  wire::BurstResponse response;
  grpc::ClientContext echoContext;
  auto echo = fixture().callbackEchoStub->PingStream(&echoContext);
  benchmarks::Payload request, reply;
  request.set_data(std::string(16, 'x'));
  uint64_t serial = 0;
  interleaved(
      state,
      [&] {
        execute.mutable_execute()->set_serial(++serial);
        return burst->Write(execute) && burst->Read(&response) && response.serial() == serial &&
               response.outcome().error().status() == wire::NONE;
      },
      [&] { return echo->Write(request) && echo->Read(&reply); });
  burst->WritesDone();
  (void)burst->Finish();
  echo->WritesDone();
  (void)echo->Finish();
}

// memcpy of the tensor plus one raw unary round trip: what a zero-copy transport should cost.
void memcpyPlusRoundTrip(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<uint8_t> from(bytes, 1), to(bytes);
  benchmarks::Payload request, reply;
  request.set_data(std::string(16, 'x'));
  Latencies latencies;
  for (auto _ : state) {
    const auto start = Clock::now();
    std::memcpy(to.data(), from.data(), bytes);
    benchmark::DoNotOptimize(to.data());
    grpc::ClientContext context;
    (void)fixture().echoStub->Ping(&context, request, &reply);
    latencies.add(Clock::now() - start);
  }
  latencies.report(state);
}

// The same RELU in process: the kernel alone reads and writes the tensor once each.
void inProcessRelu(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const uint32_t elements = static_cast<uint32_t>(bytes / sizeof(float));
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(hal::OperandType::TENSOR_FLOAT32, {elements});
  const uint32_t out = b.addOutput(hal::OperandType::TENSOR_FLOAT32, {elements});
  b.addOperation(hal::OperationType::RELU, {in}, {out});
  auto prepared = *sim::SimDevice::create(sim::edgeNpuConfig())
                       ->prepareModel(b.build(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                      hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  const hal::Request request = requestFor(*hal::createHeapMemory(bytes), *hal::createHeapMemory(bytes));
  Latencies latencies;
  for (auto _ : state) {
    const auto start = Clock::now();
    benchmark::DoNotOptimize(prepared->execute(request, hal::MeasureTiming::NO, std::nullopt, std::nullopt));
    latencies.add(Clock::now() - start);
  }
  latencies.report(state);
}

void inputVia(benchmark::State& state, bool shared) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  const uint32_t elements = static_cast<uint32_t>(bytes / sizeof(float));
  const auto& connection = shared ? fixture().connection : fixture().bytesConnection;
  auto prepared = prepareRelu(elements, connection);
  auto in = shared ? *hal::createSharedMemory(bytes) : *hal::createHeapMemory(bytes);
  auto out = shared ? *hal::createSharedMemory(bytes) : *hal::createHeapMemory(bytes);
  const hal::Request request = requestFor(in, out);
  Latencies latencies;
  for (auto _ : state) {
    const auto start = Clock::now();
    if (!prepared->execute(request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok()) {
      state.SkipWithError("execute failed");
    }
    latencies.add(Clock::now() - start);
  }
  latencies.report(state);
}

BENCHMARK_CAPTURE(rawUnary, sync, false)->Name("1_raw_grpc_unary")->UseRealTime();
BENCHMARK_CAPTURE(rawBidi, sync, false)->Name("1_raw_grpc_bidi")->UseRealTime();
BENCHMARK_CAPTURE(rawUnary, callback, true)->Name("1_raw_grpc_callback_unary")->UseRealTime();
BENCHMARK_CAPTURE(rawBidi, callback, true)->Name("1_raw_grpc_callback_bidi")->UseRealTime();
BENCHMARK(emulatorTrivialRpc)->Name("2_emulator_get_device_info")->UseRealTime();
BENCHMARK(inProcessExecute)->Name("2_in_process_execute")->Arg(0)->Arg(1)->UseRealTime();
BENCHMARK(proxySyncExecute)->Name("2_proxy_sync_execute")->UseRealTime();
BENCHMARK_CAPTURE(proxyBurstExecute, stream, false)->Name("3_proxy_burst_execute")->UseRealTime();
BENCHMARK_CAPTURE(syncExecuteAndRawUnary, sync, false)->Name("6_sync_execute_and_raw_unary_in_turn")->UseRealTime();
BENCHMARK_CAPTURE(burstExecuteAndRawBidi, sync, false)->Name("6_burst_execute_and_raw_bidi_in_turn")->UseRealTime();
BENCHMARK_CAPTURE(syncExecuteAndRawUnary, callback, true)
    ->Name("6_sync_execute_and_raw_callback_unary_in_turn")
    ->UseRealTime();
BENCHMARK_CAPTURE(burstExecuteAndRawBidi, callback, true)
    ->Name("6_burst_execute_and_raw_callback_bidi_in_turn")
    ->UseRealTime();
BENCHMARK(rawClientBurstAndRawCallbackBidi)->Name("6_raw_client_burst_and_raw_callback_bidi_in_turn")->UseRealTime();
BENCHMARK_CAPTURE(proxyBurstExecute, shared_queue, true)->Name("4_shared_queue_burst_execute")->UseRealTime();
BENCHMARK(memcpyPlusRoundTrip)->Name("5_memcpy_plus_round_trip")->Arg(1 << 20)->Arg(16 << 20)->UseRealTime();
BENCHMARK(inProcessRelu)->Name("5_in_process_relu")->Arg(1 << 20)->Arg(16 << 20)->UseRealTime();
BENCHMARK_CAPTURE(inputVia, shm, true)->Name("5_input_via_shared_memory")->Arg(1 << 20)->Arg(16 << 20)->UseRealTime();
BENCHMARK_CAPTURE(inputVia, bytes, false)->Name("5_input_via_bytes")->Arg(1 << 20)->Arg(16 << 20)->UseRealTime();

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const auto p50 = run.counters.find("p50_us");
      const auto p99 = run.counters.find("p99_us");
      std::string name = run.benchmark_name();
      name = name.substr(0, name.rfind("/real_time"));
      if (p50 != run.counters.end()) p50_[name] = p50->second;
      if (p99 != run.counters.end()) p99_[name] = p99->second;
      const auto rawP50 = run.counters.find("raw_p50_us");
      const auto rawP99 = run.counters.find("raw_p99_us");
      if (rawP50 != run.counters.end()) p50_[name + "/raw"] = rawP50->second;
      if (rawP99 != run.counters.end()) p99_[name + "/raw"] = rawP99->second;
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto ratio = [&](const std::string& what, const std::string& a, const std::string& b, const char* target) {
      if (p50_[b] <= 0) return;
      std::printf("%-68s p50 %8.1f us vs %8.1f us = %5.2fx   p99 %8.1f vs %8.1f = %5.2fx   (target %s)\n",
                  what.c_str(), p50_[a], p50_[b], p50_[a] / p50_[b], p99_[a], p99_[b], p99_[a] / p99_[b], target);
    };
    std::printf("\n");
    ratio("sync execute / raw unary", "2_proxy_sync_execute", "1_raw_grpc_unary", "<= 1.25x");
    ratio("burst execute / raw bidi", "3_proxy_burst_execute", "1_raw_grpc_bidi", "<= 1.15x");
    ratio("sync execute / raw unary, taken in turn", "6_sync_execute_and_raw_unary_in_turn",
          "6_sync_execute_and_raw_unary_in_turn/raw", "<= 1.25x");
    ratio("burst execute / raw bidi, taken in turn", "6_burst_execute_and_raw_bidi_in_turn",
          "6_burst_execute_and_raw_bidi_in_turn/raw", "<= 1.15x");
    ratio("sync execute / raw callback-API unary, taken in turn", "6_sync_execute_and_raw_callback_unary_in_turn",
          "6_sync_execute_and_raw_callback_unary_in_turn/raw", "-");
    ratio("burst execute / raw callback-API bidi, taken in turn", "6_burst_execute_and_raw_callback_bidi_in_turn",
          "6_burst_execute_and_raw_callback_bidi_in_turn/raw", "-");
    ratio("burst messages from a raw client / raw callback-API bidi, in turn",
          "6_raw_client_burst_and_raw_callback_bidi_in_turn", "6_raw_client_burst_and_raw_callback_bidi_in_turn/raw",
          "-");
    ratio("raw callback-API bidi / raw bidi", "1_raw_grpc_callback_bidi", "1_raw_grpc_bidi", "-");
    ratio("raw callback-API unary / raw unary", "1_raw_grpc_callback_unary", "1_raw_grpc_unary", "-");
    std::printf("%-68s p50 %8.1f us   p99 %8.1f us   (target p50 <= 20 us)\n", "same-host shared-queue burst execute",
                p50_["4_shared_queue_burst_execute"], p99_["4_shared_queue_burst_execute"]);
    ratio("shared-queue burst / gRPC-stream burst", "4_shared_queue_burst_execute", "3_proxy_burst_execute", "-");
    for (const char* size : {"1048576", "16777216"}) {
      const std::string s = size;
      ratio("shared memory / (memcpy + round trip), " + s + " B", "5_input_via_shared_memory/" + s,
            "5_memcpy_plus_round_trip/" + s, "<= 2x");
      // The model must compute too: the fairer floor is the in-process execution plus one round trip.
      p50_["in_process_plus_round_trip/" + s] = p50_["5_in_process_relu/" + s] + p50_["1_raw_grpc_unary"];
      p99_["in_process_plus_round_trip/" + s] = p99_["5_in_process_relu/" + s] + p99_["1_raw_grpc_unary"];
      ratio("shared memory / (in-process execution + round trip), " + s + " B",
            "5_input_via_shared_memory/" + s, "in_process_plus_round_trip/" + s, "-");
      ratio("bytes / shared memory, " + s + " B", "5_input_via_bytes/" + s, "5_input_via_shared_memory/" + s,
            s == "16777216" ? ">= 10x" : "-");
    }
  }

 private:
  std::map<std::string, double> p50_, p99_;
};

}  // namespace

int main(int argc, char** argv) {
  // Our own flag, taken out before Google Benchmark reads the rest.
  bool ownProcess = true;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--servers=own-process") {
      ownProcess = true;
    } else if (arg == "--servers=same-process") {
      ownProcess = false;
    } else if (arg.rfind("--servers", 0) == 0) {
      std::fprintf(stderr, "unknown %s: --servers=own-process (the default) or --servers=same-process\n", arg.c_str());
      return 2;
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  emulator::turnOffAbslDeadlockDetection();  // as npu_emulator does; the raw baselines gain as much
  benchmark::Initialize(&argc, argv);
  if (ownProcess) {
    for (ServerKind kind : kServerKinds) {
      if (!startServerProcess(kind, Addresses::of(::getpid()))) {
        std::fprintf(stderr, "a server process did not start within 30 s\n");
        stopServerProcesses();
        return 1;
      }
    }
  }
  std::printf("servers: %s\n", ownProcess ? "each in a process of its own (--servers=own-process)"
                                          : "all in this process (--servers=same-process)");
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  stopServerProcesses();
  return 0;
}
