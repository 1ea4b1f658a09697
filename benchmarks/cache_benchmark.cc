// Compilation caching through the proxy over TCP, side by side in one run: how long MobileNet v1
// float32 (16 MiB of weights) takes to prepare from its model, and from its cache.
//
//   bazel run -c opt //benchmarks:cache_benchmark [-- --runs=N]
//
// Target: prepareModelFromCache / prepareModel <= 0.05, because a cached preparation sends no
// weights: the proxy sends the small model cache and the data cache's head, and the device uses
// the constants it kept when it saved (or last loaded) that cache. Also printed: the preparation
// that saves the cache, and a cold load on a second server with the same key that holds nothing
// yet (the whole data cache travels then).
#include <fcntl.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "emulator/emulator_server.h"
#include "emulator/simulated_npus.h"
#include "hal/compilation_cache.h"
#include "drivers/proxy/proxy_device.h"
#include "tools/models/built_in.h"

namespace {

using namespace nnremote;  // NOLINT: a benchmark file
using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "cache_benchmark: %s\n", what.c_str());
  std::exit(1);
}

template <typename T>
T check(hal::Result<T> result, const char* what) {
  if (!result.ok()) fail(std::string(what) + ": " + result.error().message);
  return std::move(result).value();
}

// Median milliseconds of `runs` calls.
double medianMs(int runs, const std::function<void()>& call) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    call();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Served {
  std::unique_ptr<emulator::EmulatorServer> server;
  hal::SharedDevice device;  // the proxy's
};

Served serve(const hal::CacheSecret& secret) {
  emulator::SimulatedNpuOptions npuOptions;
  npuOptions.cacheSecret = secret;
  emulator::ServerOptions serverOptions;
  serverOptions.security.insecureTcp = true;  // loopback, this process's own server
  Served served;
  served.server = check(emulator::EmulatorServer::start(
                            {emulator::createSimulatedNpu(sim::edgeNpuConfig(), npuOptions)}, "127.0.0.1:0",
                            serverOptions),
                        "start the emulator");
  auto connection = check(proxy::Connection::connect(served.server->address()), "connect");
  served.device = check(proxy::ProxyDevice::discover(connection), "discover").front();
  return served;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 7;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--runs=", 7) == 0) runs = std::max(1, std::atoi(argv[i] + 7));
  }
  const hal::Model model = check(tools::builtInModel("mobilenet"), "build MobileNet").model;
  const hal::CacheSecret secret = hal::randomCacheSecret();
  Served warm = serve(secret);
  const hal::IDevice& device = *warm.device;

  char directory[] = "/tmp/nnremote-cache-benchmark-XXXXXX";
  if (::mkdtemp(directory) == nullptr) fail("mkdtemp");
  auto handle = [&](const char* name) {
    return std::vector<hal::CacheFile>{check(hal::openCacheFile(std::string(directory) + "/" + name, O_RDWR | O_CREAT),
                                             "open a cache file")};
  };
  hal::CacheToken token{};
  token[0] = 42;

  const double prepareMs = medianMs(runs, [&] {
    check(device.prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                              std::nullopt, {}, {}, {}),
          "prepareModel");
  });
  const double saveMs = medianMs(runs, [&] {
    check(device.prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                              std::nullopt, handle("model"), handle("data"), token),
          "prepareModel with cache");
  });
  const double fromCacheMs = medianMs(runs, [&] {
    check(device.prepareModelFromCache(std::nullopt, handle("model"), handle("data"), token), "prepareModelFromCache");
  });
  // A second server with the same key holds none of the data yet.
  double coldMs = 0;
  {
    Served cold = serve(secret);
    const auto start = Clock::now();
    check(cold.device->prepareModelFromCache(std::nullopt, handle("model"), handle("data"), token),
          "prepareModelFromCache on a new server");
    coldMs = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  }
  // The same device in process, for where the time goes.
  double inProcessPrepareMs = 0, inProcessFromCacheMs = 0;
  {
    const hal::SharedDevice local = emulator::createSimulatedNpu(sim::edgeNpuConfig());
    inProcessPrepareMs = medianMs(runs, [&] {
      check(local->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                std::nullopt, handle("local-model"), handle("local-data"), token),
            "prepareModel in process");
    });
    inProcessFromCacheMs = medianMs(runs, [&] {
      check(local->prepareModelFromCache(std::nullopt, handle("local-model"), handle("local-data"), token),
            "prepareModelFromCache in process");
    });
  }
  std::printf(
      "cache_benchmark: MobileNet v1 float32 through the proxy over TCP, median of %d: prepareModel %.2f ms, "
      "prepareModel saving the cache %.2f ms, prepareModelFromCache %.2f ms (cold, on a new server: %.2f ms; "
      "in process: saving %.2f ms, from cache %.2f ms); prepareModelFromCache / prepareModel = %.4f "
      "(target <= 0.05)\n",
      runs, prepareMs, saveMs, fromCacheMs, coldMs, inProcessPrepareMs, inProcessFromCacheMs, fromCacheMs / prepareMs);
  return 0;
}
