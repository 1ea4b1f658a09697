// Does a crashing backend disturb anyone else? One real npu_emulator serves the simulated edge16
// in process and crashing_backend.so (segfault:op=MUL: every execution of a model with a MUL
// kills its backend host) in backend hosts. 4 clients run a 1-operation ADD model on edge16
// throughout, while quiet spells alternate with spells in which another client takes the backend
// through one whole crash: it executes a MUL model there, which kills the host, then executes an
// ADD model there until it runs again, on a restarted host, prepared again. Each quiet spell lasts
// as long as the crash spell before it, so the two kinds are sampled alike; and the crash
// machinery (restart, reconnection, preparing again) stays inside the crash spells. 20 crashes
// in all. Prints the latency percentiles of the executions started in each kind of spell, the
// clients' errors (target: none), and p99 with crashes over p99 without (issue target: at most
// 1.2). Alternating spells (rather than one quiet phase, then one with crashes) keeps the
// machine's own drift out of the ratio. --without-crashes runs the same spells with the other
// client idle, which shows the ratio's own noise on this machine. A bench binary, not Google
// Benchmark: the run has a shape (crash 20 times), not an iteration count.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "benchmarks/process_stats.h"
#include "hal/model_builder.h"
#include "drivers/proxy/proxy_device.h"
#include "testing/add_model.h"
#include "testing/emulator_process.h"

namespace {

using namespace nnremote;
using Clock = std::chrono::steady_clock;

constexpr int kClients = 4;
constexpr int kCrashes = 20;  // one per crash spell
// The first quiet spell's length, and each crash spell's under --without-crashes (about what one
// crash takes on a 2-core machine).
constexpr auto kFirstQuietSpell = std::chrono::milliseconds(100);
constexpr auto kIdleSpell = std::chrono::milliseconds(60);

hal::SharedPreparedModel prepareOn(const std::string& address, const std::string& device,
                                   hal::OperationType operation = hal::OperationType::ADD) {
  auto connection = proxy::Connection::connect(address);
  if (!connection.ok()) std::abort();
  auto devices = proxy::ProxyDevice::discover(*connection);
  if (!devices.ok()) std::abort();
  for (const auto& proxy : *devices) {
    if (proxy->getName() != device) continue;
    auto prepared = proxy->prepareModel(testing::twoInputModel(operation), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
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

// What the executions started in one kind of spell saw, and the CPU used meanwhile.
struct Tally {
  std::vector<double> latenciesUs;
  int errors = 0;
  int crashes = 0;
  double seconds = 0;
  CpuTimes cpu;
  benchmarks::MachineCpuTicks machine;  // summed over the spells: the machine's and the stolen ticks
};

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  return sorted[std::min(sorted.size() - 1, static_cast<size_t>(p * static_cast<double>(sorted.size())))];
}

void print(const char* name, const Tally& tally) {
  std::printf("%-15s %6zu executions, %d errors, p50 %7.1f us, p90 %7.1f us, p99 %7.1f us%s\n", name,
              tally.latenciesUs.size(), tally.errors, percentile(tally.latenciesUs, 0.5),
              percentile(tally.latenciesUs, 0.9), percentile(tally.latenciesUs, 0.99),
              tally.crashes > 0 ? (", " + std::to_string(tally.crashes) + " backend host crashes meanwhile").c_str() : "");
  // Where the CPU went: what the crashes cost beyond the clients' own work shows here.
  // And the host's part: a spell kind the hypervisor took more from is slower for that alone.
  std::printf("%-15s %6.2f s; CPU: server %.0f ms, backend hosts %.0f ms, clients %.0f ms; stolen by the host %.1f%%\n",
              "", tally.seconds, tally.cpu.server, tally.cpu.backendHosts, tally.cpu.clients,
              100 * benchmarks::stealShare({}, tally.machine));
}

}  // namespace

int main(int argc, char** argv) {
  bool withCrashes = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--without-crashes") == 0) {
      withCrashes = false;
    } else {
      const bool help = std::strcmp(argv[i], "--help") == 0;
      std::fprintf(help ? stdout : stderr,
                   "usage: crash_isolation_benchmark [--without-crashes]\n"
                   "  4 clients on a simulated device while another backend crashes 20 times; prints their\n"
                   "  p99 latency with crashes over without. --without-crashes: the same spells, no crash\n"
                   "  (the ratio's own noise).\n");
      return help ? 0 : 2;
    }
  }
  const std::string config = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") +
                             "/crash-isolation-" + std::to_string(::getpid()) + ".textproto";
  // Never given up on, and restarted at once: as many crashes per second as it will take.
  std::ofstream(config) << "backend_isolation { crash_loop_crashes: 1000 crash_loop_window_s: 1 restart_backoff_ms: 1 }\n";
  const std::string address = testing::EmulatorProcess::uniqueAddress("crash-isolation");
  testing::EmulatorProcess server(address, {"--config=edge16",
                                            "--backend=tests/emulator/backends/crashing_backend.so:segfault:op=MUL",
                                            "--server-config=" + config});
  std::vector<hal::SharedPreparedModel> clients;
  for (int c = 0; c < kClients; ++c) clients.push_back(prepareOn(address, "nnremote-edge16"));
  const hal::SharedPreparedModel crasher = prepareOn(address, "crashtest-edge16", hal::OperationType::MUL);
  const hal::SharedPreparedModel survivor = prepareOn(address, "crashtest-edge16");

  // The clients run throughout; each execution counts for the spell it started in.
  enum Spell { kQuiet = 0, kCrashing = 1 };
  std::atomic<int> spell{kQuiet};
  std::atomic<bool> done{false};
  std::vector<Tally> each(kClients * 2);  // [client * 2 + spell]
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      auto io = *hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
      while (!done) {
        const int during = spell;
        const auto start = Clock::now();
        auto outcome = clients[c]->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
        Tally& tally = each[c * 2 + during];
        tally.latenciesUs.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        if (!outcome.ok()) ++tally.errors;
      }
    });
  }

  Tally quiet, crashing;
  auto account = [&](Tally& tally, const CpuTimes& before, const benchmarks::MachineCpuTicks& machineBefore,
                     Clock::time_point since) {
    const CpuTimes after = cpuNow(server.pid());
    const benchmarks::MachineCpuTicks machineAfter = benchmarks::machineCpuTicks();
    tally.machine.total += machineAfter.total - machineBefore.total;
    tally.machine.steal += machineAfter.steal - machineBefore.steal;
    tally.cpu.server += after.server - before.server;
    tally.cpu.backendHosts += after.backendHosts - before.backendHosts;
    tally.cpu.clients += after.clients - before.clients;
    tally.seconds += std::chrono::duration<double>(Clock::now() - since).count();
  };
  auto io = *hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8});
  const auto giveUp = Clock::now() + std::chrono::minutes(5);
  Clock::duration quietSpell = kFirstQuietSpell;
  for (int round = 0; round <= kCrashes && Clock::now() < giveUp; ++round) {
    const CpuTimes cpuBefore = cpuNow(server.pid());
    const benchmarks::MachineCpuTicks machineBefore = benchmarks::machineCpuTicks();
    auto since = Clock::now();
    std::this_thread::sleep_until(since + quietSpell);
    account(quiet, cpuBefore, machineBefore, since);
    if (round == kCrashes) break;

    const CpuTimes cpuBeforeCrash = cpuNow(server.pid());
    const benchmarks::MachineCpuTicks machineBeforeCrash = benchmarks::machineCpuTicks();
    since = Clock::now();
    spell = kCrashing;
    if (withCrashes) {
      auto outcome = crasher->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
      if (!outcome.ok() && outcome.error().message.find("killed by SIGSEGV") != std::string::npos) ++crashing.crashes;
      // Until the backend serves again: a restarted host, the model prepared there again.
      while (Clock::now() < giveUp &&
             !survivor->execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok()) {
      }
    } else {
      std::this_thread::sleep_for(kIdleSpell);
    }
    spell = kQuiet;
    quietSpell = Clock::now() - since;
    account(crashing, cpuBeforeCrash, machineBeforeCrash, since);
  }
  done = true;
  for (auto& thread : threads) thread.join();

  for (int c = 0; c < kClients; ++c) {
    for (Tally* into : {&quiet, &crashing}) {
      const Tally& from = each[c * 2 + (into == &crashing ? kCrashing : kQuiet)];
      into->latenciesUs.insert(into->latenciesUs.end(), from.latenciesUs.begin(), from.latenciesUs.end());
      into->errors += from.errors;
    }
  }
  std::sort(quiet.latenciesUs.begin(), quiet.latenciesUs.end());
  std::sort(crashing.latenciesUs.begin(), crashing.latenciesUs.end());
  print("quiet", quiet);
  print(withCrashes ? "while crashing" : "other idle", crashing);
  std::printf("4 clients on nnremote-edge16: %d errors while the other backend crashed %d times; p99 %.3fx of quiet\n",
              crashing.errors, crashing.crashes,
              percentile(crashing.latenciesUs, 0.99) / percentile(quiet.latenciesUs, 0.99));
  std::remove(config.c_str());
  return quiet.errors == 0 && crashing.errors == 0 && crashing.crashes == (withCrashes ? kCrashes : 0) ? 0 : 1;
}
