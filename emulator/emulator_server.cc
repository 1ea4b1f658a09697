#include "emulator/emulator_server.h"

#include <unistd.h>

#include <chrono>

namespace nnremote::emulator {

hal::Result<std::unique_ptr<EmulatorServer>> EmulatorServer::start(
    std::vector<hal::SharedDevice> devices, const std::string& address, SessionLimits sessionLimits) {
  if (devices.empty()) {
    return hal::makeError(hal::ErrorStatus::INVALID_ARGUMENT) << "no devices to serve";
  }
  // A stale socket file from an earlier run would make binding fail.
  if (address.rfind("unix:", 0) == 0) ::unlink(address.substr(5).c_str());
  std::unique_ptr<EmulatorServer> server(new EmulatorServer());
  server->service_ = std::make_unique<AcceleratorService>(std::move(devices), sessionLimits);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(address, grpc::InsecureServerCredentials(), &port);
  // Models and tensors are bounded by the schema's own limits, not gRPC's 4 MiB default.
  builder.SetMaxReceiveMessageSize(-1);
  builder.SetMaxSendMessageSize(-1);
  builder.RegisterService(server->service_.get());
  builder.RegisterService(&server->service_->sessionWatch());
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr) {
    return hal::makeError(hal::ErrorStatus::DEVICE_UNAVAILABLE)
           << "cannot listen on " << address << " (address in use, or malformed?)";
  }
  server->address_ = address;
  const auto colon = address.rfind(':');
  if (address.rfind("unix", 0) != 0 && colon != std::string::npos &&
      address.substr(colon + 1) == "0") {
    server->address_ = address.substr(0, colon + 1) + std::to_string(port);
  }
  return server;
}

EmulatorServer::~EmulatorServer() { shutdown(); }

void EmulatorServer::wait() {
  if (server_) server_->Wait();
}

void EmulatorServer::shutdown() {
  if (service_) service_->stopWatching();
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
}

}  // namespace nnremote::emulator
