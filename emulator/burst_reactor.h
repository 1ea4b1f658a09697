// A burst's server side, on gRPC's callback API: while its client is between executions the
// burst holds no thread. Stream messages are handled in order; executions run where
// QuickExecutions places them (inline when quick, else on a WorkPool thread).
// A same-host client gets a shared-memory queue too; the queue is served on a pool thread while
// busy and parked when idle (wire/shared_queue.h), and the client wakes it over the stream.
#ifndef NNREMOTE_EMULATOR_BURST_REACTOR_H_
#define NNREMOTE_EMULATOR_BURST_REACTOR_H_

#include <grpcpp/grpcpp.h>

#include "emulator/caller_identity.h"
#include "emulator/quick_executions.h"
#include "emulator/session_registry.h"
#include "emulator/work_pool.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

// The reactor for one Burst call; it deletes itself when the call is done.
grpc::ServerBidiReactor<wire::BurstRequest, wire::BurstResponse>* startBurst(grpc::CallbackServerContext* context,
                                                                             const SessionRegistry& sessions,
                                                                             const Authenticator& authenticator,
                                                                             WorkPool& pool,
                                                                             QuickExecutions& quick);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_BURST_REACTOR_H_
