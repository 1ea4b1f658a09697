// One NPU, many clients: what the scheduler does for latency and throughput, measured against an
// npu_emulator in a child process (so its threads and memory can be read from /proc), with real
// clients through the proxy driver on unix sockets.
//
//   bazel run -c opt //benchmarks:qos_benchmark [-- --seconds=S --only=1|2|3 --idle-sessions=K --open-bursts=B]
//
// 1. Priorities, paced in real time on nnremote-edge16: 4 LOW clients run MobileNet v1 in a loop
//    while 1 HIGH client runs the sample model. Target: the HIGH client's p99 <= its p99 on an
//    idle device + the longest single MobileNet operation's device time + 2 ms; with every
//    client at MEDIUM it must be clearly worse; LOW clients still complete executions.
// 2. Throughput, unpaced: 1, 2, 4, 16 and 64 clients run the sample model. Target: 4 clients
//    >= 1.7x the throughput of 1 (2 cores); from 4 to 64 clients it drops by at most 10%.
// 3. Idle sessions and open bursts: the server's threads and memory per idle session, and an
//    active client's sync latency with and without them (two servers at once, executions taken
//    in turn). Target: <= 32 threads, <= 10 KiB per idle session, p50/p99 <= 1.1x.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/resource.h>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/process_stats.h"
#include "emulator/simulated_npus.h"
#include "hal/model_builder.h"
#include "drivers/proxy/proxy_device.h"
#include "tools/models/built_in.h"

namespace {

using namespace nnremote;  // NOLINT: a benchmark file
using Clock = std::chrono::steady_clock;

// npu_emulator serving edge16 in a child process (the real binary, from this target's runfiles),
// until destroyed.
class ServerProcess {
 public:
  ServerProcess(bool paced, const std::string& name)
      : address_("unix-abstract:nnremote-qos-" + name + "-" + std::to_string(::getpid())) {
    const std::string listen = "--listen=" + address_;
    pid_ = ::fork();
    if (pid_ == 0) {
      const char* pace = paced ? "--pace=realtime" : "--pace=none";
      ::execl("emulator/npu_emulator", "npu_emulator", listen.c_str(), "--config=edge16", pace,
              static_cast<char*>(nullptr));
      std::perror("emulator/npu_emulator (run this with bazel run)");
      _exit(1);
    }
    // Serving within 10 s, or the benchmark stops here with the reason.
    proxy::ConnectionOptions quick;
    quick.connectTimeout = std::chrono::milliseconds(200);
    for (int attempt = 0; attempt < 50; ++attempt) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        std::fprintf(stderr, "npu_emulator exited at start (see above)\n");
        std::exit(1);
      }
      if (proxy::Connection::connect(address_, quick).ok()) return;
    }
    std::fprintf(stderr, "npu_emulator is not serving %s after 10 s\n", address_.c_str());
    std::exit(1);
  }
  ~ServerProcess() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  const std::string& address() const { return address_; }
  // CPU seconds the server has used (user + system).
  double cpuSeconds() const { return benchmarks::processCpuSeconds(pid_); }
  // A field of /proc/PID/status, e.g. "Threads" or "VmRSS" (kB).
  long status(const std::string& field) const { return benchmarks::processStatusField(pid_, field); }

 private:
  std::string address_;
  pid_t pid_ = -1;
};

std::shared_ptr<proxy::Connection> connect(const std::string& address) {
  for (int attempt = 0; attempt < 200; ++attempt) {  // the child may still be starting
    if (auto connection = proxy::Connection::connect(address); connection.ok()) return *connection;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::fprintf(stderr, "cannot reach %s\n", address.c_str());
  std::exit(1);
}

struct Client {
  std::shared_ptr<proxy::Connection> connection;
  hal::SharedPreparedModel prepared;
  hal::RequestWithMemories io;
};

Client makeClient(const std::string& address, const tools::BuiltModel& model, hal::Priority priority) {
  Client client;
  client.connection = connect(address);
  auto devices = proxy::ProxyDevice::discover(client.connection);
  client.prepared = *devices->front()->prepareModel(model.model, hal::ExecutionPreference::SUSTAINED_SPEED, priority,
                                                    std::nullopt, {}, {}, {});
  // Pools in shared memory, as a client on the emulator's host would have them: registered once,
  // never copied (MobileNet's input is 600 KB).
  client.io = *hal::makeRequest({model.input}, model.outputSizes, hal::createSharedMemory);
  return client;
}

double percentileOf(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * static_cast<double>(values.size())))];
}

struct Latencies {
  std::vector<double> us;        // client wall clock
  std::vector<double> driverUs;  // the server's timeInDriver: time on the simulated timeline
  uint64_t errors = 0;
  double percentile(double p) const { return percentileOf(us, p); }
  double driverPercentile(double p) const { return percentileOf(driverUs, p); }
};

// Times one execution of `client` into `latencies`.
void timeOne(Client& client, Latencies& latencies) {
  const auto start = Clock::now();
  auto outcome = client.prepared->execute(client.io.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  if (!outcome.ok()) {
    ++latencies.errors;
    return;
  }
  latencies.us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  latencies.driverUs.push_back(static_cast<double>(outcome->timing.timeInDriver.value_or(hal::Duration(0)).count()) / 1e3);
}

// Runs `client` in a loop until `stop`, timing each execution.
Latencies loop(Client& client, const std::atomic<bool>& stop) {
  Latencies latencies;
  while (!stop) timeOne(client, latencies);
  return latencies;
}

// The HIGH (or MEDIUM) sample client's latencies while `lowClients` MobileNet clients at
// `lowPriority` keep the paced device busy; LOW executions completed go to *lowDone.
Latencies prioritized(int seconds, int lowClients, hal::Priority highPriority, hal::Priority lowPriority,
                      uint64_t* lowDone) {
  ServerProcess server(/*paced=*/true, "prio");
  const auto sample = *tools::builtInModel("sample");
  const auto mobilenet = *tools::builtInModel("mobilenet");
  std::vector<Client> lows;
  for (int i = 0; i < lowClients; ++i) lows.push_back(makeClient(server.address(), mobilenet, lowPriority));
  Client high = makeClient(server.address(), sample, highPriority);
  std::atomic<bool> stop{false};
  std::vector<Latencies> lowResults(lows.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < lows.size(); ++i) threads.emplace_back([&, i] { lowResults[i] = loop(lows[i], stop); });
  std::this_thread::sleep_for(std::chrono::milliseconds(lowClients > 0 ? 500 : 0));  // let the queue fill
  Latencies highResult;
  std::thread highThread([&] { highResult = loop(high, stop); });
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  stop = true;
  highThread.join();
  for (auto& thread : threads) thread.join();
  *lowDone = 0;
  for (const auto& result : lowResults) *lowDone += result.us.size();
  return highResult;
}

// The longest single operation of MobileNet v1 on edge16, in device time.
double longestMobileNetOperationUs() {
  auto device = emulator::createSimulatedNpu(sim::edgeNpuConfig());
  const auto mobilenet = *tools::builtInModel("mobilenet");
  auto prepared = *device->prepareModel(mobilenet.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                        hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  auto io = *hal::makeRequest({mobilenet.input}, mobilenet.outputSizes);
  auto outcome = *prepared->execute(io.request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  uint64_t longest = 0;
  for (const auto& op : outcome.profile->operations) longest = std::max(longest, op.totalCycles);
  return static_cast<double>(longest) * 1e6 / outcome.profile->clockHz;
}

double processCpuSeconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

// Aggregate executions per second of `clients` unpaced sample clients; *cores gets the CPU the
// server and the clients used together, in cores.
double throughput(int clients, int seconds, double* cores) {
  ServerProcess server(/*paced=*/false, "tput" + std::to_string(clients));
  const auto sample = *tools::builtInModel("sample");
  std::vector<Client> all;
  for (int i = 0; i < clients; ++i) all.push_back(makeClient(server.address(), sample, hal::Priority::MEDIUM));
  std::atomic<bool> stop{false};
  std::vector<Latencies> results(all.size());
  std::vector<std::thread> threads;
  const auto start = Clock::now();
  const double cpuBefore = server.cpuSeconds() + processCpuSeconds();
  for (size_t i = 0; i < all.size(); ++i) threads.emplace_back([&, i] { results[i] = loop(all[i], stop); });
  std::this_thread::sleep_for(std::chrono::seconds(seconds));
  stop = true;
  for (auto& thread : threads) thread.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  *cores = (server.cpuSeconds() + processCpuSeconds() - cpuBefore) / elapsed;
  uint64_t done = 0;
  for (const auto& result : results) done += result.us.size();
  return static_cast<double>(done) / elapsed;
}

// An unpaced server with `idleSessions` idle sessions and `openBursts` open bursts held by other
// clients, and one active sample client of its own; its threads and the memory each idle session
// added, read once they are all open.
struct LoadedServer {
  std::unique_ptr<ServerProcess> server;
  Client active;
  std::vector<std::shared_ptr<proxy::Connection>> idle;
  std::vector<Client> burstHolders;  // 200 bursts each, within the default per-session quota
  std::vector<hal::SharedBurst> bursts;
  long threads = 0;
  double kibPerIdleSession = 0;
};

LoadedServer loadServer(int idleSessions, int openBursts) {
  LoadedServer loaded;
  loaded.server = std::make_unique<ServerProcess>(/*paced=*/false, "idle" + std::to_string(idleSessions));
  const std::string& address = loaded.server->address();
  const auto sample = *tools::builtInModel("sample");
  loaded.active = makeClient(address, sample, hal::Priority::MEDIUM);
  const long rssBefore = loaded.server->status("VmRSS");
  for (int i = 0; i < idleSessions; ++i) loaded.idle.push_back(connect(address));
  for (int i = 0; i < openBursts; ++i) {
    if (i % 200 == 0) loaded.burstHolders.push_back(makeClient(address, sample, hal::Priority::MEDIUM));
    auto burst = loaded.burstHolders.back().prepared->configureExecutionBurst();
    if (!burst.ok()) {
      std::fprintf(stderr, "burst %d: %s\n", i, burst.error().message.c_str());
      std::exit(1);
    }
    loaded.bursts.push_back(*burst);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  loaded.threads = loaded.server->status("Threads");
  if (idleSessions > 0) {
    loaded.kibPerIdleSession = static_cast<double>(loaded.server->status("VmRSS") - rssBefore) / idleSessions;
  }
  return loaded;
}

void priorities(int seconds) {
  std::printf("1. Priorities on nnremote-edge16, paced in real time, %d s per run\n", seconds);
  uint64_t lowDone = 0;
  Latencies idle = prioritized(seconds, 0, hal::Priority::HIGH, hal::Priority::LOW, &lowDone);
  Latencies high = prioritized(seconds, 4, hal::Priority::HIGH, hal::Priority::LOW, &lowDone);
  const uint64_t lowWithPriorities = lowDone;
  Latencies medium = prioritized(seconds, 4, hal::Priority::MEDIUM, hal::Priority::MEDIUM, &lowDone);
  const double longestOp = longestMobileNetOperationUs();
  const double bound = idle.percentile(0.99) + longestOp + 2000;
  std::printf("  sample alone (HIGH):              p50 %8.0f us  p99 %8.0f us\n", idle.percentile(0.5),
              idle.percentile(0.99));
  std::printf("  HIGH sample + 4 LOW MobileNet:    p50 %8.0f us  p99 %8.0f us  (LOW executions done: %llu)\n",
              high.percentile(0.5), high.percentile(0.99), static_cast<unsigned long long>(lowWithPriorities));
  std::printf("    of which on the device timeline (timeInDriver): p50 %8.0f us  p99 %8.0f us\n",
              high.driverPercentile(0.5), high.driverPercentile(0.99));
  std::printf("  all MEDIUM (no priorities):       p50 %8.0f us  p99 %8.0f us\n", medium.percentile(0.5),
              medium.percentile(0.99));
  std::printf("  longest MobileNet operation: %.0f us of device time\n", longestOp);
  std::printf("  HIGH p99 %.0f us vs bound (idle p99 + longest op + 2 ms) %.0f us: %s; all-MEDIUM p99 is %.1fx "
              "the HIGH p99; LOW completed %s\n",
              high.percentile(0.99), bound, high.percentile(0.99) <= bound ? "MET" : "NOT MET",
              medium.percentile(0.99) / std::max(1.0, high.percentile(0.99)), lowWithPriorities > 0 ? "yes" : "NO");

}

void scaling(int seconds) {
  std::printf("\n2. Throughput, unpaced, sample model, %d s per run\n", seconds);
  std::vector<std::pair<int, double>> rates;
  for (int clients : {1, 2, 4, 16, 64}) {
    double cores = 0;
    rates.emplace_back(clients, throughput(clients, seconds, &cores));
    std::printf("  %2d clients: %8.0f executions/s  (server + clients used %.2f cores)\n", clients, rates.back().second,
                cores);
  }
  const double scaling = rates[2].second / rates[0].second;
  const double drop = 1.0 - rates[4].second / rates[2].second;
  std::printf("  4 clients / 1 client = %.2fx (target >= 1.7x: %s); 4 -> 64 clients: %+.1f%% (target >= -10%%: %s)\n",
              scaling, scaling >= 1.7 ? "MET" : "NOT MET", -drop * 100, drop <= 0.10 ? "MET" : "NOT MET");

}

// Both servers run at once, and the active client's executions alternate between them, one each
// in turn, so that both see the same moment of the host: measured one after the other, a
// virtual machine's drift between two 10-second runs was as large as the effect.
void idleClients(int seconds, int idleSessions, int openBursts) {
  std::printf("\n3. %d idle sessions and %d open bursts, %d s, one execution on each server in turn\n", idleSessions,
              openBursts, seconds);
  LoadedServer quiet = loadServer(0, 0);
  LoadedServer busy = loadServer(idleSessions, openBursts);
  Latencies quietLatencies, busyLatencies;
  const auto end = Clock::now() + std::chrono::seconds(seconds);
  while (Clock::now() < end) {
    timeOne(quiet.active, quietLatencies);
    timeOne(busy.active, busyLatencies);
  }
  std::printf("  server threads: %ld without, %ld with (target <= 32: %s)\n", quiet.threads, busy.threads,
              busy.threads <= 32 ? "MET" : "NOT MET");
  std::printf("  memory per idle session: %.1f KiB (target <= 10 KiB: %s)\n", busy.kibPerIdleSession,
              busy.kibPerIdleSession <= 10 ? "MET" : "NOT MET");
  const double p50 = busyLatencies.percentile(0.50) / quietLatencies.percentile(0.50);
  const double p99 = busyLatencies.percentile(0.99) / quietLatencies.percentile(0.99);
  std::printf("  active sync execute p50 %.0f -> %.0f us (%.2fx), p99 %.0f -> %.0f us (%.2fx), %zu executions each, "
              "%llu errors (target <= 1.1x: %s)\n",
              quietLatencies.percentile(0.50), busyLatencies.percentile(0.50), p50, quietLatencies.percentile(0.99),
              busyLatencies.percentile(0.99), p99, busyLatencies.us.size(),
              static_cast<unsigned long long>(quietLatencies.errors + busyLatencies.errors),
              p50 <= 1.1 && p99 <= 1.1 ? "MET" : "NOT MET");
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress shows as it comes, even piped
  int seconds = 10;
  int idleSessions = 10000, openBursts = 1000;
  int only = 0;  // --only=N runs part N alone
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--only=", 7) == 0) only = std::atoi(argv[i] + 7);
    if (std::strncmp(argv[i], "--seconds=", 10) == 0) seconds = std::max(1, std::atoi(argv[i] + 10));
    if (std::strncmp(argv[i], "--idle-sessions=", 16) == 0) idleSessions = std::max(0, std::atoi(argv[i] + 16));
    if (std::strncmp(argv[i], "--open-bursts=", 14) == 0) openBursts = std::max(0, std::atoi(argv[i] + 14));
  }

  if (only == 0 || only == 1) priorities(seconds);
  if (only == 0 || only == 2) scaling(seconds);
  if (only == 0 || only == 3) idleClients(seconds, idleSessions, openBursts);
  return 0;
}
