// A running emulator: the Accelerator service on a gRPC server. Used by the npu_emulator
// binary, by `nnremote` when no --target is given, and by tests that need a real server.
#ifndef NNREMOTE_EMULATOR_EMULATOR_SERVER_H_
#define NNREMOTE_EMULATOR_EMULATOR_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>
#include <vector>

#include "emulator/accelerator_service.h"
#include "hal/i_device.h"

namespace nnremote::emulator {

// Where the emulator listens when not told otherwise: a unix socket, reachable only from this
// host and free of port clashes.
constexpr const char* kDefaultListenAddress = "unix:/tmp/nnremote.sock";

class EmulatorServer {
 public:
  // Starts serving `devices` at `address`: "unix:PATH", "unix-abstract:NAME" or "HOST:PORT"
  // (port 0 picks a free port; address() then tells which).
  // `sessionLimits` are the quotas of every client session (server_config.proto).
  static hal::Result<std::unique_ptr<EmulatorServer>> start(std::vector<hal::SharedDevice> devices,
                                                            const std::string& address,
                                                            SessionLimits sessionLimits = {});
  ~EmulatorServer();

  // The address clients should use, with the real port for "HOST:0".
  const std::string& address() const { return address_; }
  const AcceleratorService& service() const { return *service_; }

  // Blocks until shutdown() is called from another thread.
  void wait();
  // Stops accepting calls, cancels those in flight after a short grace period, and returns.
  void shutdown();

 private:
  EmulatorServer() = default;
  std::unique_ptr<AcceleratorService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_EMULATOR_SERVER_H_
