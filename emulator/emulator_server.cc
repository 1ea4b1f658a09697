#include "emulator/emulator_server.h"

#include <grpcpp/resource_quota.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <limits>

#include "absl/synchronization/mutex.h"

#include "emulator/accelerator_callbacks.h"
#include "emulator/accelerator_service.h"
#include "emulator/accept_guard.h"
#include "emulator/grpc_handoff.h"
#include "emulator/tcp_listen_check.h"
#include "hal/truncation_guard.h"
#include "wire/address.h"

namespace nnremote::emulator {
namespace {

// The credentials of a TCP listener: TLS (mutual when a client CA is given), or plaintext when
// the operator said --insecure.
hal::Result<std::shared_ptr<grpc::ServerCredentials>> tcpCredentials(const ServerSecurity& security,
                                                                     const std::string& address) {
  if (security.tlsCertPem.empty() != security.tlsKeyPem.empty()) {
    return hal::invalidArgument() << "TLS needs both a certificate and its key";
  }
  if (security.tlsCertPem.empty()) {
    if (!security.clientCaPem.empty()) return hal::invalidArgument() << "a client CA needs TLS (--tls-cert, --tls-key)";
    if (!security.insecureTcp) {
      return hal::invalidArgument() << "refusing to serve " << address
                                    << " over plain TCP: anyone who reaches the port could use the devices. "
                                       "Give --tls-cert and --tls-key, listen on a unix socket, or accept the "
                                       "risk with --insecure";
    }
    return grpc::InsecureServerCredentials();
  }
  grpc::SslServerCredentialsOptions tls(security.clientCaPem.empty()
                                            ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                            : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  tls.pem_root_certs = security.clientCaPem;
  tls.pem_key_cert_pairs.push_back({security.tlsKeyPem, security.tlsCertPem});
  return grpc::SslServerCredentials(tls);
}

hal::Status checkClientAccess(const std::vector<hal::SharedDevice>& devices, const ClientAccess& access) {
  for (const auto& [identity, names] : access.devicesOf) {
    for (const auto& name : names) {
      bool served = false;
      for (const auto& device : devices) served = served || device->getName() == name;
      if (!served) {
        return hal::invalidArgument() << "identities: '" << identity << "' is given device '" << name
                                      << "', which this server does not serve";
      }
    }
  }
  if (access.extensions.has_value()) {
    // A misspelt name would grant nothing and go unnoticed.
    auto offered = [&](const std::string& name) {
      for (const auto& device : devices) {
        for (const auto& extension : device->getSupportedExtensions()) {
          if (extension.name == name) return true;
        }
      }
      return false;
    };
    std::vector<std::string> granted(access.extensions->everyone.begin(), access.extensions->everyone.end());
    for (const auto& [identity, names] : access.extensions->extensionsOf)
      granted.insert(granted.end(), names.begin(), names.end());
    for (const auto& name : granted) {
      if (!offered(name)) {
        return hal::invalidArgument() << "extension_allowlist: '" << name << "' is not offered by any served device";
      }
    }
  }
  return {};
}

// gRPC's channel arguments are ints.
int clampedMs(std::chrono::milliseconds duration) {
  return static_cast<int>(std::min<int64_t>(duration.count(), std::numeric_limits<int>::max()));
}

}  // namespace

void turnOffAbslDeadlockDetection() { absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore); }

void raiseOpenFileLimit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max) {
    limit.rlim_cur = limit.rlim_max;
    (void)::setrlimit(RLIMIT_NOFILE, &limit);  // best effort: the default limit still serves
  }
}

hal::Result<std::unique_ptr<EmulatorServer>> EmulatorServer::start(std::vector<hal::SharedDevice> devices,
                                                                   const std::string& address, ServerOptions options) {
  if (devices.empty()) {
    return hal::makeError(hal::ErrorStatus::INVALID_ARGUMENT) << "no devices to serve";
  }
  NN_RETURN_IF_ERROR(checkClientAccess(devices, options.clientAccess));
  // Clients' shared memory is mapped here: one that shrinks its pool must not end the server.
  hal::armTruncationGuard();
  // Its reserve descriptor must exist before the descriptors run out (accept_guard.h).
  armAcceptGuard();
  std::unique_ptr<EmulatorServer> server(new EmulatorServer());
  grpc::ServerBuilder builder;
  int port = 0;
  NN_ASSIGN_OR_RETURN(const wire::Address parsed, wire::parseAddress(address, wire::AddressUse::kListen));
  const bool unix = parsed.isUnix();
  if (unix) {
    if (!options.security.tlsCertPem.empty()) {
      return hal::invalidArgument() << "TLS is for TCP listeners; " << address
                                    << " is protected by its file mode and identifies clients by uid";
    }
    NN_ASSIGN_OR_RETURN(server->unixListener_, UnixListener::bind(address, options.security.socketGroup));
  } else {
    NN_ASSIGN_OR_RETURN(auto credentials, tcpCredentials(options.security, address));
    if (auto usable = checkCanListen(parsed); !usable.ok()) {
      return hal::withContext(usable.error(), "cannot listen on " + address);
    }
    builder.AddListeningPort(address, credentials, &port);
  }
  server->service_ = std::make_unique<AcceleratorService>(
      std::move(devices), options.session, options.clientAccess,
      std::make_unique<Authenticator>(std::move(options.security.tokens), &server->unixPeers_));
  server->service_->acceptDescriptorsFrom(std::move(options.descriptors));
  // Models and tensors are bounded by the schema's own limits, not gRPC's 4 MiB default. A size
  // limit would not bound the memory a client can make the server take anyway: gRPC 1.51 reads
  // a message in whole before it checks its size. Its resource quota does, by cancelling calls.
  builder.SetMaxReceiveMessageSize(-1);
  builder.SetMaxSendMessageSize(-1);
  grpc::ResourceQuota messageMemory("npu_emulator messages");
  messageMemory.Resize(static_cast<size_t>(options.session.messageMemoryBytes));
  builder.SetResourceQuota(messageMemory);
  // Clients keep their connection alive with pings (the proxy driver every 10 s), and a burst's
  // executions ride shared memory, so pings may be all the connection carries for minutes. gRPC's
  // server defaults take such pings for abuse (no calls, or under 5 minutes apart without data)
  // and end the connection with GOAWAY "too_many_pings" after two: the client then reconnects and
  // loses its session, and its calls take milliseconds instead of microseconds meanwhile.
  // gRPC binds TCP ports with SO_REUSEPORT by default, so a second server on a port in use would
  // start, and the kernel would split new connections between the two. A port in use is an error.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, kMinClientPingIntervalMs);
  // Connections are not bounded in number, so ones opened and left must not hold the server's
  // descriptors for long: silent ones (the unix listener does the same), and ones without a call.
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS, clampedMs(options.session.connectionHandshake));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, clampedMs(options.session.connectionIdle));
  server->callbacks_ = makeAcceleratorCallbacks(*server->service_);
  builder.RegisterService(server->callbacks_.get());
  builder.RegisterService(&server->service_->sessionWatch());
  builder.RegisterService(&server->service_->waits());
  // Callback handlers run on gRPC's shared threads, which may predate this server.
  handOffToGrpc(server->callbacks_.get());
  handOffToGrpc(&server->service_->sessionWatch());
  handOffToGrpc(&server->service_->waits());
  handOffToGrpc(&server->service_->rpcServices());  // what every unary handler uses
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr) {
    return hal::makeError(hal::ErrorStatus::DEVICE_UNAVAILABLE)
           << "cannot listen on " << address << " (address in use, malformed, or a bad certificate?)";
  }
  if (server->unixListener_) {
    NN_RETURN_IF_ERROR(
        server->unixListener_->accept(server->server_.get(), &server->unixPeers_, options.session.connectionHandshake));
  }
  server->address_ = address;
  if (!unix && parsed.port == 0) server->address_ = parsed.name + ":" + std::to_string(port);
  return server;
}

EmulatorServer::~EmulatorServer() { shutdown(); }

void EmulatorServer::wait() {
  if (server_) server_->Wait();
}

void EmulatorServer::shutdown() {
  if (unixListener_) unixListener_->stop();
  if (service_) service_->stopWatching();
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

}  // namespace nnremote::emulator
