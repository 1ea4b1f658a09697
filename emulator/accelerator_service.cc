#include "emulator/accelerator_service.h"

#include "emulator/device_health.h"
#include "emulator/caller_session.h"
#include "proto/conversions.h"
#include "proto/grpc_status.h"
#include "hal/vlog.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;
using wire_conv::toGrpcStatus;

AcceleratorService::AcceleratorService(std::vector<hal::SharedDevice> devices, SessionLimits sessionLimits,
                                       ClientAccess clientAccess, std::unique_ptr<Authenticator> authenticator)
    : devices_(std::move(devices)),
      sessions_(sessionLimits),
      clientAccess_(std::move(clientAccess)),
      authenticator_(std::move(authenticator)) {}

grpc::Status AcceleratorService::callerSession(const grpc::ServerContextBase& context, uint64_t id,
                                               std::shared_ptr<Session>* session) const {
  return emulator::callerSession(*authenticator_, sessions_, context, id, session);
}

hal::Result<hal::SharedDevice> AcceleratorService::findDevice(const std::string& name,
                                                              const std::string& identity) const {
  for (const auto& device : devices_) {
    if (device->getName() == name && clientAccess_.allows(identity, name)) return device;
  }
  auto error = makeError(ErrorStatus::INVALID_ARGUMENT);
  error << "device_name '" << name << "' is not served here (devices:";
  for (const auto& device : devices_) {
    if (clientAccess_.allows(identity, device->getName())) error << " " << device->getName();
  }
  error << ")";
  return error;
}

grpc::Status AcceleratorService::OpenSession(grpc::ServerContextBase* context,
                                             const wire::OpenSessionRequest* request,
                                             wire::OpenSessionResponse* response) {
  std::string identity;
  if (grpc::Status refused = identify(*context, &identity); !refused.ok()) return refused;
  if (request->client_version() != wire_conv::kWireVersion) {
    return toGrpcStatus(makeError(ErrorStatus::INVALID_ARGUMENT)
                        << "client_version " << request->client_version()
                        << " is not supported; this server speaks wire version " << wire_conv::kWireVersion);
  }
  const auto session = sessions_.open(identity, request->client_name());
  NN_VLOG(WIRE) << "session " << session->id() << " opened by " << identity << " (" << request->client_name() << ", "
                << context->peer() << ")";
  response->set_session_id(session->id());
  response->set_identity(identity);
  response->set_server_version(wire_conv::kWireVersion);
  response->set_server_name("nnremote npu_emulator");
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::CloseSession(grpc::ServerContextBase* context,
                                              const wire::CloseSessionRequest* request,
                                              wire::Empty*) {
  std::string identity;
  if (grpc::Status refused = identify(*context, &identity); !refused.ok()) return refused;
  const hal::Status status = sessions_.close(request->session_id(), identity);
  NN_VLOG(WIRE) << "session " << request->session_id() << " closed by " << identity
                << (status.ok() ? "" : ": " + status.error().message);
  if (status.ok()) watch_.sessionClosed(request->session_id());
  return toGrpcStatus(status);
}

wire::DeviceInfo AcceleratorService::deviceInfoFor(const hal::IDevice& device, const std::string& identity) const {
  wire::DeviceInfo info = wire_conv::deviceInfo(device);
  if (const std::optional<DeviceHealth> health = supervisedHealthOf(device)) {
    wire::BackendHostHealth* host = info.mutable_backend_host();
    host->set_running(health->running);
    host->set_unavailable(health->unavailable);
    host->set_restarts(health->restarts);
    host->set_last_exit(health->lastExit);
    host->set_pid(static_cast<uint32_t>(health->pid));
  }
  // Extensions this identity may not use are not there for it at all.
  auto* extensions = info.mutable_extensions();
  for (int i = extensions->size() - 1; i >= 0; --i) {
    if (!clientAccess_.allowsExtension(identity, extensions->Get(i).name())) extensions->DeleteSubrange(i, 1);
  }
  return info;
}

hal::Status AcceleratorService::checkExtensionsAllowed(const hal::Model& model, const std::string& identity) const {
  for (size_t i = 0; i < model.extensionNameToPrefix.size(); ++i) {
    const std::string& name = model.extensionNameToPrefix[i].name;
    if (!clientAccess_.allowsExtension(identity, name)) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "extensionNameToPrefix[" << i << "] names extension '" << name << "', which '" << identity
             << "' may not use (extension_allowlist in the server config)";
    }
  }
  return {};
}

grpc::Status AcceleratorService::ListDevices(grpc::ServerContextBase* context, const wire::ListDevicesRequest*,
                                             wire::ListDevicesResponse* response) {
  std::string identity;
  if (grpc::Status refused = identify(*context, &identity); !refused.ok()) return refused;
  for (const auto& device : devices_) {
    if (clientAccess_.allows(identity, device->getName())) *response->add_devices() = deviceInfoFor(*device, identity);
  }
  return grpc::Status::OK;
}

grpc::Status AcceleratorService::GetDeviceInfo(grpc::ServerContextBase* context,
                                               const wire::GetDeviceInfoRequest* request,
                                               wire::DeviceInfo* response) {
  std::string identity;
  if (grpc::Status refused = identify(*context, &identity); !refused.ok()) return refused;
  auto device = findDevice(request->device_name(), identity);
  if (!device.ok()) return toGrpcStatus(device.error());
  *response = deviceInfoFor(**device, identity);
  return grpc::Status::OK;
}
}  // namespace nnremote::emulator
