#include "emulator/session_rpcs.h"

#include "emulator/session_watch_service.h"
#include "hal/vlog.h"
#include "wire/wire_constants.h"

namespace nnremote::emulator {

void SessionRpcs::addTo(RpcTable& table) {
  // Answered at once: they touch only the server's own tables.
  table.add("OpenSession", Runs::kNow, this, &SessionRpcs::openSession);
  table.add("ListDevices", Runs::kNow, this, &SessionRpcs::listDevices);
  table.add("GetDeviceInfo", Runs::kNow, this, &SessionRpcs::getDeviceInfo);
  // Releasing what a session holds reaches its devices.
  table.add("CloseSession", Runs::kOnPool, this, &SessionRpcs::closeSession);
}

hal::Result<wire::OpenSessionResponse> SessionRpcs::openSession(const Caller& caller,
                                                                const wire::OpenSessionRequest& request) {
  if (request.client_version() != wire::kWireVersion) {
    return hal::invalidArgument() << "client_version " << request.client_version()
                                  << " is not supported; this server speaks wire version " << wire::kWireVersion;
  }
  NN_ASSIGN_OR_RETURN(const std::shared_ptr<Session> session, sessions_.open(caller.identity, request.client_name()));
  NN_VLOG(WIRE) << "session " << session->id() << " opened by " << caller.identity << " (" << request.client_name()
                << ", " << caller.peer << ")";
  wire::OpenSessionResponse response;
  response.set_session_id(session->id());
  response.set_identity(caller.identity);
  response.set_server_version(wire::kWireVersion);
  response.set_server_name("nnremote npu_emulator");
  return response;
}

hal::Result<wire::Empty> SessionRpcs::closeSession(const Caller& caller, const wire::CloseSessionRequest& request) {
  const hal::Status status = sessions_.close(request.session_id(), caller.identity);
  NN_VLOG(WIRE) << "session " << request.session_id() << " closed by " << caller.identity
                << (status.ok() ? "" : ": " + status.error().message);
  NN_RETURN_IF_ERROR(status);
  watch_.sessionClosed(request.session_id());
  return wire::Empty();
}

hal::Result<wire::ListDevicesResponse> SessionRpcs::listDevices(const Caller& caller, const wire::ListDevicesRequest&) {
  wire::ListDevicesResponse response;
  for (auto& info : devices_.infoFor(caller.identity)) *response.add_devices() = std::move(info);
  return response;
}

hal::Result<wire::DeviceInfo> SessionRpcs::getDeviceInfo(const Caller& caller,
                                                         const wire::GetDeviceInfoRequest& request) {
  NN_ASSIGN_OR_RETURN(hal::SharedDevice device, devices_.find(request.device_name(), caller.identity));
  return devices_.infoFor(*device, caller.identity);
}

}  // namespace nnremote::emulator
