// The session a call names, if the caller may use it: what every RPC family starts with.
#ifndef NNREMOTE_EMULATOR_CALLER_SESSION_H_
#define NNREMOTE_EMULATOR_CALLER_SESSION_H_

#include <memory>
#include <string>

#include <grpcpp/grpcpp.h>

#include "emulator/caller_identity.h"
#include "emulator/session_registry.h"
#include "wire/grpc_status.h"

namespace nnremote::emulator {

// UNAUTHENTICATED when the caller proves no identity, INVALID_ARGUMENT when session `id` is not
// open or not the caller's (reported alike, so ids cannot be probed).
inline grpc::Status callerSession(const Authenticator& authenticator, const SessionRegistry& sessions,
                                  const grpc::ServerContextBase& context, uint64_t id,
                                  std::shared_ptr<Session>* session) {
  std::string identity;
  if (grpc::Status refused = authenticator.identify(context, &identity); !refused.ok()) return refused;
  auto found = sessions.find(id, identity);
  if (!found.ok()) {
    // NOT_FOUND tells a client that its session is gone (this server restarted) and nothing ran,
    // so it can open a new one and call again; the HAL error stays INVALID_ARGUMENT.
    const grpc::Status refused = wire::toGrpcStatus(found.error());
    return grpc::Status(grpc::StatusCode::NOT_FOUND, refused.error_message(), refused.error_details());
  }
  *session = std::move(found).value();
  return grpc::Status::OK;
}

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_CALLER_SESSION_H_
