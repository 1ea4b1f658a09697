// npu_emulator: serves simulated NPUs over gRPC. See --help.
#include <signal.h>

#include <cstring>
#include <iostream>
#include <string>
#include <thread>

#include "accelerator_sim/sim_device.h"
#include "emulator/emulator_server.h"

namespace {

constexpr const char* kUsage = R"(usage: npu_emulator [--listen=ADDR] [--config=PRESETS]

Serves simulated NPUs to nnremote proxy drivers over gRPC until interrupted (Ctrl-C or SIGTERM).

  --listen=ADDR     where to listen (default unix:/tmp/nnremote.sock):
                      unix:PATH            a unix socket on this host
                      unix-abstract:NAME   a Linux abstract unix socket
                      HOST:PORT            TCP, e.g. 127.0.0.1:50051 or 0.0.0.0:50051;
                                           port 0 picks a free port and prints it
                    The server has no authentication: listen on a public address only on a
                    network you trust.
  --config=PRESETS  the devices to serve, comma-separated (default: edge16,large128):
                      edge16    nnremote-edge16: 16x16 systolic array @ 800 MHz
                      large128  nnremote-large128: 128x128 systolic array @ 1 GHz
  --help            show this text
)";

bool takeFlag(const char* arg, const char* name, std::string* value) {
  const size_t length = std::strlen(name);
  if (std::strncmp(arg, name, length) != 0 || arg[length] != '=') return false;
  *value = arg + length + 1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen = nnremote::emulator::kDefaultListenAddress;
  std::string config = "default";
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::cout << kUsage;
      return 0;
    }
    if (!takeFlag(argv[i], "--listen", &listen) && !takeFlag(argv[i], "--config", &config)) {
      std::cerr << "npu_emulator: unknown argument '" << argv[i] << "'\n\n" << kUsage;
      return 2;
    }
  }
  auto configs = nnremote::sim::npuConfigsFromList(config);
  if (!configs.ok()) {
    std::cerr << "npu_emulator: --config: " << configs.error().message << "\n";
    return 2;
  }
  std::vector<nnremote::hal::SharedDevice> devices;
  for (const auto& npu : *configs) devices.push_back(nnremote::sim::SimDevice::create(npu));

  // Block the stop signals in every thread; one thread waits for them and shuts down cleanly.
  sigset_t stopSignals;
  sigemptyset(&stopSignals);
  sigaddset(&stopSignals, SIGINT);
  sigaddset(&stopSignals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);

  auto server = nnremote::emulator::EmulatorServer::start(devices, listen);
  if (!server.ok()) {
    std::cerr << "npu_emulator: " << server.error().message << "\n";
    return 1;
  }
  std::cout << "npu_emulator listening on " << (*server)->address() << " with";
  for (const auto& device : devices) std::cout << " " << device->getName();
  std::cout << std::endl;

  std::thread stopper([&] {
    int signal = 0;
    sigwait(&stopSignals, &signal);
    std::cout << "npu_emulator: " << strsignal(signal) << ", shutting down" << std::endl;
    (*server)->shutdown();
  });
  (*server)->wait();
  stopper.join();
  return 0;
}
