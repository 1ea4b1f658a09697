#include "emulator/serve_until_stopped.h"

#include <signal.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "emulator/accelerator_service.h"
#include "emulator/pool_records.h"
#include "emulator/prometheus_metrics.h"
#include "farm/pool_registration.h"
#include "wire/address.h"

namespace nnremote::emulator {
namespace {

sigset_t stopSignals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

// What the stop signals' thread does with one: nothing set while the server starts.
struct Stopping {
  std::mutex mutex;
  std::function<void(int)> stop;  // set by serveUntilStopped once it serves
};

Stopping& stopping() {
  static auto* state = new Stopping;  // never destroyed: the signal thread may outlive main
  return *state;
}

void announce(const EmulatorServer& server, const DeviceStack& stack, const RunOptions& options) {
  std::cout << "npu_emulator listening on " << server.address() << " with";
  for (const auto& device : stack.devices) std::cout << " " << device->getName();
  std::cout << (options.paceRealtime ? ", paced in real time" : "") << std::endl;
  if (stack.faults || !stack.faultInBackendHost.empty()) {
    std::cerr << "npu_emulator: injecting a fault"
              << (stack.faultInBackendHost.empty() ? "" : " in the backend host of " + stack.faultInBackendHost)
              << ": --fault=" << options.fault << std::endl;
  }
  if (stack.recorder) std::cout << "npu_emulator: recording to " << stack.recorder->path() << std::endl;
  const ServerSecurity& security = options.server.security;
  if (security.insecureTcp && !wire::isUnixAddress(options.listen) && security.tlsCertPem.empty()) {
    std::cerr << "npu_emulator: WARNING: serving plain TCP (--insecure): anyone who can reach " << server.address()
              << " can use these devices"
              << (security.tokens.empty() ? "" : ", and bearer tokens travel unencrypted") << std::endl;
  }
}

// Registered only once serving: a client that finds the devices can use them.
hal::Result<std::unique_ptr<farm::PoolRegistration>> joinPool(const EmulatorServer& server, const DeviceStack& stack,
                                                               const RunOptions& options) {
  farm::RegistrationOptions pool;
  pool.endpoints = options.etcd;
  pool.pool = options.pool;
  pool.ttl = options.etcdTtl;
  const std::string advertise = options.advertise.empty() ? server.address() : options.advertise;
  const auto parsed = wire::parseAddress(advertise, wire::AddressUse::kConnect);
  if (!parsed.ok()) return hal::withContext(parsed.error(), options.advertise.empty() ? "--etcd" : "--advertise");
  if (parsed->name == "0.0.0.0" || parsed->name == "[::]") {
    return hal::invalidArgument() << "--etcd: listening on " << advertise
                                  << " names no host clients can reach; give --advertise=HOST:PORT";
  }
  auto started = farm::PoolRegistration::start(pool, poolRecordsOf(stack.devices, advertise), std::cout);
  if (!started.ok()) return hal::withContext(started.error(), "--etcd");
  return started;
}

}  // namespace

void takeStopSignals() {
  const sigset_t signals = stopSignals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread([] {
    const sigset_t signals = stopSignals();
    int signal = 0;
    if (sigwait(&signals, &signal) != 0) return;
    std::function<void(int)> stop;
    {
      std::lock_guard<std::mutex> lock(stopping().mutex);
      stop = std::move(stopping().stop);
    }
    if (stop) return stop(signal);
    // Still starting: a backend host may take its whole startup timeout, and a user's Ctrl-C
    // must not wait for it. End at once, as by the signal's default action.
    std::cout << "npu_emulator: " << strsignal(signal) << " while starting" << std::endl;
    ::signal(signal, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
    ::raise(signal);
    std::_Exit(128 + signal);
  }).detach();
}

int serveUntilStopped(DeviceStack stack, const RunOptions& options) {
  auto server = EmulatorServer::start(stack.devices, options.listen, options.server);
  if (!server.ok()) {
    std::cerr << "npu_emulator: " << server.error().message << "\n";
    return 1;
  }
  announce(**server, stack, options);

  std::unique_ptr<MetricsExporter> metrics;
  if (!options.metrics.empty()) {
    auto exporter = MetricsExporter::start(options.metrics, stack.devices, (*server)->service());
    if (!exporter.ok()) {
      std::cerr << "npu_emulator: --metrics: " << exporter.error().message << "\n";
      return 2;
    }
    metrics = std::move(exporter).value();
    const std::string host = options.metrics.substr(0, options.metrics.rfind(':'));
    std::cout << "npu_emulator: metrics at http://" << host << ":" << metrics->port() << "/metrics" << std::endl;
  }
  std::unique_ptr<farm::PoolRegistration> registration;
  if (!options.etcd.empty()) {
    auto joined = joinPool(**server, stack, options);
    if (!joined.ok()) {
      std::cerr << "npu_emulator: " << joined.error().message << "\n";
      return 2;
    }
    registration = std::move(joined).value();
  }

  // From here on a stop signal stops the server cleanly; `stopped` says when it has.
  std::promise<void> stopped;
  {
    std::lock_guard<std::mutex> lock(stopping().mutex);
    stopping().stop = [&](int signal) {
      std::cout << "npu_emulator: " << strsignal(signal) << ", shutting down" << std::endl;
      // A hung execution would hold the shutdown forever.
      if (stack.faults) stack.faults->releaseAll();
      // Out of the pool first: no client is sent here any more.
      registration.reset();
      (*server)->shutdown();
      stopped.set_value();
    };
  }
  (*server)->wait();
  stopped.get_future().wait();
  return 0;
}

}  // namespace nnremote::emulator
