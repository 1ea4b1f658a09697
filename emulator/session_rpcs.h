// The Accelerator RPCs of sessions and devices: OpenSession, CloseSession, ListDevices and
// GetDeviceInfo. None names a session it must already have, so each gets the caller.
#ifndef NNREMOTE_EMULATOR_SESSION_RPCS_H_
#define NNREMOTE_EMULATOR_SESSION_RPCS_H_

#include "emulator/rpc_scaffold.h"
#include "emulator/served_devices.h"
#include "emulator/session_registry.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

class SessionWatchService;  // a gRPC service: its header costs every includer seconds

class SessionRpcs {
 public:
  SessionRpcs(SessionRegistry& sessions, SessionWatchService& watch, const ServedDevices& devices)
      : sessions_(sessions), watch_(watch), devices_(devices) {}

  void addTo(RpcTable& table);

  // Refuses a client that speaks another wire version.
  hal::Result<wire::OpenSessionResponse> openSession(const Caller& caller, const wire::OpenSessionRequest& request);
  // Ends the session and what it holds, and its WatchSessions entry.
  hal::Result<wire::Empty> closeSession(const Caller& caller, const wire::CloseSessionRequest& request);
  hal::Result<wire::ListDevicesResponse> listDevices(const Caller& caller, const wire::ListDevicesRequest& request);
  hal::Result<wire::DeviceInfo> getDeviceInfo(const Caller& caller, const wire::GetDeviceInfoRequest& request);

 private:
  SessionRegistry& sessions_;
  SessionWatchService& watch_;
  const ServedDevices& devices_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SESSION_RPCS_H_
