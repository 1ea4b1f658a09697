// A running emulator: the Accelerator service on a gRPC server. Used by the npu_emulator
// binary, by `nnremote` when no --target is given, and by tests that need a real server.
#ifndef NNREMOTE_EMULATOR_EMULATOR_SERVER_H_
#define NNREMOTE_EMULATOR_EMULATOR_SERVER_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "emulator/caller_identity.h"
#include "emulator/descriptor_inbox.h"
#include "emulator/server_config.h"
#include "emulator/unix_listener.h"
#include "hal/i_device.h"
#include "wire/wire_constants.h"

namespace grpc {
class Server;
class Service;
}  // namespace grpc

namespace nnremote::emulator {

// emulator/accelerator_service.h, which brings every RPC family's handlers and the generated
// service with it: most users of a server only start and stop it, and include it when they
// reach into the service.
class AcceleratorService;

// Where the emulator listens when not told otherwise: a unix socket, reachable only from this
// host and free of port clashes.
constexpr const char* kDefaultListenAddress = wire::kDefaultServerAddress;

// How clients prove who they are (docs/security.md). PEM contents, not paths.
struct ServerSecurity {
  std::string tlsCertPem, tlsKeyPem;  // TLS on a TCP listener
  std::string clientCaPem;            // mutual TLS: client certificates required, verified by this CA
  TokenTable tokens;                  // when not empty, every call needs one of these bearer tokens
  // A TCP listener without TLS refuses to start unless this is set: anyone who reaches the port
  // could use it.
  bool insecureTcp = false;
  // A unix socket file is 0600; with a group it is 0660 and owned by that group.
  std::optional<gid_t> socketGroup;
};

struct ServerOptions {
  SessionLimits session;      // every client session's quotas (server_config.proto)
  ClientAccess clientAccess;  // identities limited to some devices
  ServerSecurity security;
  // Descriptors handed over on a side channel, for RegisterMemory's passed_descriptor (a
  // backend host's; null elsewhere, where that field is refused).
  std::shared_ptr<DescriptorInbox> descriptors;
};

// Debian's abseil keeps its debug checks, so every absl::Mutex lock (gRPC takes several per call)
// also runs deadlock detection: about a fifth of gRPC's instructions per call (callgrind on
// transport_benchmark). Programs that serve call this once at start. It changes a process-wide
// setting, so a library must not; our own locks are std::mutex, checked by ThreadSanitizer.
void turnOffAbslDeadlockDetection();

// A server keeps a descriptor open per registered shared-memory pool (to hand it to a backend
// host), so a serving program raises its open-file limit to the hard limit at start.
void raiseOpenFileLimit();

class EmulatorServer {
 public:
  // The shortest interval between a client's keepalive pings that the server accepts, with or
  // without calls and data; a client pinging more often is told to calm down (GOAWAY). The
  // proxy driver pings every 10 s by default.
  static constexpr int kMinClientPingIntervalMs = 1000;

  // Starts serving `devices` at `address`: "unix:PATH", "unix-abstract:NAME" or "HOST:PORT"
  // (wire/address.h; port 0 picks a free port, and address() then tells which).
  static hal::Result<std::unique_ptr<EmulatorServer>> start(std::vector<hal::SharedDevice> devices,
                                                            const std::string& address,
                                                            ServerOptions options = {});
  ~EmulatorServer();

  // The address clients should use, with the real port for "HOST:0".
  const std::string& address() const { return address_; }
  const AcceleratorService& service() const { return *service_; }
  AcceleratorService& service() { return *service_; }

  // Blocks until shutdown() is called from another thread.
  void wait();
  // Stops accepting calls, cancels those in flight after a short grace period, and returns.
  void shutdown();

 private:
  EmulatorServer() = default;
  UnixPeers unixPeers_;
  std::unique_ptr<UnixListener> unixListener_;
  std::unique_ptr<AcceleratorService> service_;
  std::unique_ptr<grpc::Service> callbacks_;  // serves service_'s Accelerator methods
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_EMULATOR_SERVER_H_
