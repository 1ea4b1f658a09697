// Does a crashing backend disturb anyone else? One real npu_emulator serves the simulated edge16
// in process and crashing_backend.so (segfault:0: every backend host dies on its first
// execution) in backend hosts. 4 clients run a 1-operation model on edge16 in three phases:
// quiet, while another client crashes the backend host 20 times, and quiet again. Prints each
// phase's latency percentiles, the clients' errors (target: none), and p99 with crashes over p99
// without (issue target: at most 1.2). A bench binary, not Google Benchmark: the phases have a
// shape (crash 20 times), not an iteration count.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hal/model_builder.h"
#include "drivers/proxy/proxy_device.h"
#include "testing/add_model.h"
#include "testing/emulator_process.h"

namespace {

using namespace nnremote;
using Clock = std::chrono::steady_clock;

constexpr int kClients = 4;
constexpr int kCrashes = 20;
constexpr int kQuietExecutionsPerClient = 1500;

hal::SharedPreparedModel prepareOn(const std::string& address, const std::string& device) {
  auto connection = proxy::Connection::connect(address);
  if (!connection.ok()) std::abort();
  auto devices = proxy::ProxyDevice::discover(*connection);
  if (!devices.ok()) std::abort();
  for (const auto& proxy : *devices) {
    if (proxy->getName() != device) continue;
    auto prepared = proxy->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                        hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    if (prepared.ok()) return *prepared;
    std::fprintf(stderr, "%s\n", prepared.error().message.c_str());
  }
  std::abort();
}

// CPU time so far, in ms: the server's own, its reaped children's (the backend hosts), and this
// process's (the clients).
struct CpuTimes {
  double server = 0, backendHosts = 0, clients = 0;
};

CpuTimes cpuNow(pid_t server) {
  CpuTimes times;
  std::ifstream stat("/proc/" + std::to_string(server) + "/stat");
  std::string line;
  std::getline(stat, line);
  // Fields after the command's closing parenthesis: state is field 3; utime, stime, cutime and
  // cstime are fields 14 to 17, in clock ticks.
  std::istringstream fields(line.substr(line.rfind(')') + 2));
  std::vector<std::string> field((std::istream_iterator<std::string>(fields)), std::istream_iterator<std::string>());
  const double tickMs = 1000.0 / static_cast<double>(::sysconf(_SC_CLK_TCK));
  if (field.size() > 14) {
    times.server = (std::stod(field[11]) + std::stod(field[12])) * tickMs;
    times.backendHosts = (std::stod(field[13]) + std::stod(field[14])) * tickMs;
  }
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  auto ms = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3; };
  times.clients = ms(usage.ru_utime) + ms(usage.ru_stime);
  return times;
}

struct Phase {
  std::vector<double> latenciesUs;
  int errors = 0;
  int crashes = 0;
  double seconds = 0;
  CpuTimes cpu;  // used during the phase
};

// The 4 clients run until `more` says stop (checked after each execution).
template <typename More>
Phase runClients(pid_t server, const std::vector<hal::SharedPreparedModel>& clients, More more) {
  const CpuTimes cpuBefore = cpuNow(server);
  const auto start = Clock::now();
  std::vector<Phase> each(clients.size());
  std::vector<std::thread> threads;
  for (size_t c = 0; c < clients.size(); ++c) {
    threads.emplace_back([&, c] {
      auto io = *hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
      for (int n = 0; more(n); ++n) {
        const auto start = Clock::now();
        auto outcome = clients[c]->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
        each[c].latenciesUs.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        if (!outcome.ok()) ++each[c].errors;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  Phase all;
  for (const auto& phase : each) {
    all.latenciesUs.insert(all.latenciesUs.end(), phase.latenciesUs.begin(), phase.latenciesUs.end());
    all.errors += phase.errors;
  }
  std::sort(all.latenciesUs.begin(), all.latenciesUs.end());
  all.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  const CpuTimes cpuAfter = cpuNow(server);
  all.cpu = {cpuAfter.server - cpuBefore.server, cpuAfter.backendHosts - cpuBefore.backendHosts,
             cpuAfter.clients - cpuBefore.clients};
  return all;
}

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())))];
}

void print(const char* name, const Phase& phase) {
  std::printf("%-22s %6zu executions, %d errors, p50 %7.1f us, p90 %7.1f us, p99 %7.1f us%s\n", name,
              phase.latenciesUs.size(), phase.errors, percentile(phase.latenciesUs, 0.5),
              percentile(phase.latenciesUs, 0.9), percentile(phase.latenciesUs, 0.99),
              phase.crashes > 0 ? (", " + std::to_string(phase.crashes) + " backend host crashes meanwhile").c_str() : "");
  // Where the CPU went: what the crashes cost beyond the clients' own work shows here.
  std::printf("%-22s %6.2f s; CPU: server %.0f ms, backend hosts %.0f ms, clients %.0f ms\n", "", phase.seconds,
              phase.cpu.server, phase.cpu.backendHosts, phase.cpu.clients);
}

}  // namespace

int main() {
  const std::string config = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                             "/crash-isolation-" + std::to_string(::getpid()) + ".textproto";
  // Never given up on, and restarted at once: as many crashes per second as it will take.
  std::ofstream(config) << "backend_isolation { crash_loop_crashes: 1000 crash_loop_window_s: 1 restart_backoff_ms: 1 }\n";
  const std::string address = testing::EmulatorProcess::uniqueAddress("crash-isolation");
  testing::EmulatorProcess server(address, {"--config=edge16",
                                            "--backend=tests/emulator/backends/crashing_backend.so:segfault:0",
                                            "--server-config=" + config});
  std::vector<hal::SharedPreparedModel> clients;
  for (int c = 0; c < kClients; ++c) clients.push_back(prepareOn(address, "nnremote-edge16"));
  const hal::SharedPreparedModel crasher = prepareOn(address, "crashtest-edge16");

  const Phase quietBefore = runClients(server.pid(), clients, [](int n) { return n < kQuietExecutionsPerClient; });
  std::atomic<bool> crashing{true};
  std::atomic<int> crashes{0};
  std::thread crashes20([&] {
    auto io = *hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
    const auto giveUp = Clock::now() + std::chrono::minutes(5);
    while (crashes < kCrashes && Clock::now() < giveUp) {
      auto outcome = crasher->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
      if (!outcome.ok() && outcome.error().message.find("killed by SIGSEGV") != std::string::npos) ++crashes;
    }
    crashing = false;
  });
  Phase crashed = runClients(server.pid(), clients, [&](int n) { return crashing || n < kQuietExecutionsPerClient; });
  crashes20.join();
  crashed.crashes = crashes;
  const Phase quietAfter = runClients(server.pid(), clients, [](int n) { return n < kQuietExecutionsPerClient; });

  Phase quiet = quietBefore;
  quiet.latenciesUs.insert(quiet.latenciesUs.end(), quietAfter.latenciesUs.begin(), quietAfter.latenciesUs.end());
  quiet.errors += quietAfter.errors;
  quiet.seconds += quietAfter.seconds;
  quiet.cpu.server += quietAfter.cpu.server;
  quiet.cpu.backendHosts += quietAfter.cpu.backendHosts;
  quiet.cpu.clients += quietAfter.cpu.clients;
  std::sort(quiet.latenciesUs.begin(), quiet.latenciesUs.end());
  print("quiet (before, after)", quiet);
  print("while crashing", crashed);
  std::printf("4 clients on nnremote-edge16: %d errors while the other backend crashed %d times; p99 %.3fx of quiet\n",
              crashed.errors, crashed.crashes,
              percentile(crashed.latenciesUs, 0.99) / percentile(quiet.latenciesUs, 0.99));
  std::remove(config.c_str());
  return crashed.errors == 0 && crashed.crashes == kCrashes ? 0 : 1;
}
