// The one way a unary RPC is served. A handler is a function from its request, and the caller's
// session (or, for the few RPCs that name none, the caller), to a hal::Result of its response,
// or, for an RPC that answers when something ends (wait_rpcs.h), of what to wait for and how to
// answer then. Each RPC family (session_rpcs.h, model_rpcs.h, ...) adds its handlers to an
// RpcTable once, saying how each runs and which session quota it adds to. The scaffold does what
// every RPC needs alike: it identifies the caller (UNAUTHENTICATED), finds the session the
// request names (NOT_FOUND, see caller_session.h), checks the quota, runs the handler where it
// should (or waits for it without a thread), and turns an error into the call's status
// (wire/grpc_status.h). So adding an RPC touches the proto and one family file. (The streaming
// RPCs, Burst and the bulk transfers, are reactors of their own.)
#ifndef NNREMOTE_EMULATOR_RPC_SCAFFOLD_H_
#define NNREMOTE_EMULATOR_RPC_SCAFFOLD_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <grpcpp/grpcpp.h>
// CallbackUnaryHandler: the handler generated services mark their callback methods with (gRPC 1.51).
#include <grpcpp/impl/codegen/server_callback_handlers.h>
// How the handlers (de)serialize protobuf messages, which the generated service would bring.
#include <grpcpp/impl/codegen/proto_utils.h>

#include "emulator/caller_identity.h"
#include "emulator/caller_session.h"
#include "emulator/fence_reactor.h"
#include "emulator/grpc_handoff.h"
#include "emulator/quick_executions.h"
#include "emulator/session_quotas.h"
#include "emulator/session_registry.h"
#include "emulator/timer_queue.h"
#include "emulator/work_pool.h"
#include "hal/result.h"
#include "wire/grpc_status.h"
// The messages only: the service itself is registered where the server is built
// (accelerator_callbacks.h), and costs every family file seconds to parse.
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

// Where a call's handler runs.
enum class Runs {
  kNow,     // on gRPC's callback thread: it touches only the server's own tables
  kOnPool,  // on a WorkPool thread: it reaches a device, which may take its time
  // an execution: inline when its last run under the same key was quick and no other execution
  // runs inline, else on the pool (quick_executions.h)
  kAsExecution,
};

// Who calls, for the handlers of RPCs that name no session.
struct Caller {
  std::string identity;
  std::string peer;  // gRPC's name for the other end, for logs
};

// A session table an RPC adds an entry to, bounded by a quota of the server config: the scaffold
// refuses the call (RESOURCE_EXHAUSTED, naming the quota) before the handler runs when the
// session already holds its limit.
struct Holds {
  const char* noun;   // "prepared models"
  const char* field;  // "session_quotas.prepared_models"
  size_t (*held)(const Session& session);
  uint32_t (*limit)(const SessionLimits& limits);
};
inline constexpr Holds kHoldsPreparedModel{
    "prepared models", "session_quotas.prepared_models",
    [](const Session& session) { return session.preparedModels.size(); },
    [](const SessionLimits& limits) { return limits.preparedModels; }};
inline constexpr Holds kHoldsFence{"fences", "session_quotas.fences",
                                   [](const Session& session) { return session.fences.size(); },
                                   [](const SessionLimits& limits) { return limits.fences; }};
inline constexpr Holds kHoldsDeviceBuffer{"device buffers", "session_quotas.device_buffers",
                                          [](const Session& session) { return session.buffers.size(); },
                                          [](const SessionLimits& limits) { return limits.deviceBuffers; }};

// Executions the server keeps for the client until it collects or releases them: started ones
// not yet awaited, fenced ones whose outcome was not yet asked for, reusable ones.
inline constexpr Holds kHoldsKeptExecution{
    "kept executions (started and not awaited, fenced and not collected, reusable)", "session_quotas.kept_executions",
    [](const Session& session) {
      return session.startedExecutions.size() + session.fencedExecutions.size() + session.reusableExecutions.size();
    },
    [](const SessionLimits& limits) { return limits.keptExecutions; }};

// RESOURCE_EXHAUSTED, naming the quota, if `session` holds its limit of what `holds` counts.
inline hal::Status checkHolds(const Session& session, const Holds& holds) {
  return checkHolding(holds.held(session), holds.limit(session.limits()), holds.noun, holds.field);
}

// What an awaiting RPC's handler returns: the fence to wait for, and the answer once it leaves
// ACTIVE (SIGNALED or ERROR) or the deadline passes (then still ACTIVE).
template <typename Response>
struct AwaitedAnswer {
  hal::SyncFence fence;
  hal::OptionalTimePoint deadline;
  std::function<hal::Result<Response>(hal::SyncFence::State)> answer;
};

// What the scaffold uses to serve any call.
struct RpcServices {
  const Authenticator& authenticator;
  const SessionRegistry& sessions;
  WorkPool& pool;
  QuickExecutions& quick;
  TimerQueue& timers;  // the deadlines of awaiting RPCs
};

// One served method: what gRPC is given to call for it.
struct RpcEntry {
  std::string method;  // its name in the Accelerator service, e.g. "PrepareModel"
  const google::protobuf::Descriptor* request = nullptr;
  const google::protobuf::Descriptor* response = nullptr;
  std::function<grpc::internal::MethodHandler*(const RpcServices&)> makeHandler;
};

// Aborts, naming the method: a table that does not match the service is a programming error,
// found as the server starts.
[[noreturn]] void misregistered(const std::string& method, const std::string& why);

class RpcTable {
 public:
  template <typename Request, typename Response>
  using SessionHandler = std::function<hal::Result<Response>(Session&, const Request&)>;
  template <typename Request, typename Response>
  using CallerHandler = std::function<hal::Result<Response>(const Caller&, const Request&)>;
  // For Runs::kAsExecution: the key QuickExecutions times a request's executions under.
  template <typename Request>
  using ExecutionKey = QuickExecutions::Key (*)(const Request&);

  // An RPC whose request names its session in `session_id`; `holds`, if given, the quota of
  // what it adds to the session.
  template <typename Request, typename Response>
  void add(const std::string& method, Runs runs, SessionHandler<Request, Response> handler,
           ExecutionKey<Request> key = nullptr, const Holds* holds = nullptr) {
    if ((runs == Runs::kAsExecution) != (key != nullptr)) misregistered(method, "needs a key exactly when it runs as an execution");
    auto run = [handler = std::move(handler), holds](const RpcServices& services, grpc::CallbackServerContext& context,
                                                     const Request& request, Response* response) {
      std::shared_ptr<Session> session;
      if (grpc::Status refused =
              callerSession(services.authenticator, services.sessions, context, request.session_id(), &session);
          !refused.ok()) {
        return refused;
      }
      if (holds != nullptr) {
        if (hal::Status full = checkHolds(*session, *holds); !full.ok()) return wire::toGrpcStatus(full.error());
      }
      return answer(handler(*session, request), response);
    };
    entries_.push_back(entry<Request, Response>(method, runs, std::move(run), key));
  }

  // An RPC that names no session (opening one, or asking about devices).
  template <typename Request, typename Response>
  void addSessionless(const std::string& method, Runs runs, CallerHandler<Request, Response> handler) {
    if (runs == Runs::kAsExecution) misregistered(method, "names no session, so it cannot run as an execution");
    auto run = [handler = std::move(handler)](const RpcServices& services, grpc::CallbackServerContext& context,
                                              const Request& request, Response* response) {
      Caller caller;
      if (grpc::Status refused = services.authenticator.identify(context, &caller.identity); !refused.ok()) {
        return refused;
      }
      caller.peer = context.peer();
      return answer(handler(caller, request), response);
    };
    entries_.push_back(entry<Request, Response>(method, runs, std::move(run), nullptr));
  }

  // An RPC that answers when a fence leaves ACTIVE: the handler runs at once (Runs::kNow) and
  // says what to wait for; the call then holds no thread until the answer, which runs on the
  // thread that ended the wait. A cancelled call lets go of the fence.
  template <typename Request, typename Response>
  void addAwaiting(const std::string& method,
                   hal::Result<AwaitedAnswer<Response>> (*handler)(Session&, const Request&)) {
    RpcEntry entry;
    entry.method = method;
    entry.request = Request::descriptor();
    entry.response = Response::descriptor();
    entry.makeHandler = [handler](const RpcServices& services) -> grpc::internal::MethodHandler* {
      return new grpc::internal::CallbackUnaryHandler<Request, Response>(
          [handler, &services](grpc::CallbackServerContext* context, const Request* request,
                               Response* response) -> grpc::ServerUnaryReactor* {
            auto finishNow = [context](const grpc::Status& status) {
              grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
              reactor->Finish(status);
              return reactor;
            };
            std::shared_ptr<Session> session;
            if (grpc::Status refused =
                    callerSession(services.authenticator, services.sessions, *context, request->session_id(), &session);
                !refused.ok()) {
              return finishNow(refused);
            }
            auto awaited = handler(*session, *request);
            if (!awaited.ok()) return finishNow(wire::toGrpcStatus(awaited.error()));
            return FenceReactor::start(awaited->fence, awaited->deadline, services.timers,
                                       [answer = std::move(awaited->answer), response](hal::SyncFence::State state) {
                                         return RpcTable::answer(answer(state), response);
                                       });
          });
    };
    entries_.push_back(std::move(entry));
  }

  // The same for a family's member functions, whose types say the request and response:
  // table.add("PrepareModel", Runs::kOnPool, this, &ModelRpcs::prepareModel).
  template <typename Family, typename Request, typename Response>
  void add(const std::string& method, Runs runs, Family* family,
           hal::Result<Response> (Family::*handler)(Session&, const Request&), ExecutionKey<Request> key = nullptr) {
    add<Request, Response>(
        method, runs, [family, handler](Session& session, const Request& request) { return (family->*handler)(session, request); },
        key);
  }
  template <typename Family, typename Request, typename Response>
  void add(const std::string& method, Runs runs, Family* family,
           hal::Result<Response> (Family::*handler)(Session&, const Request&), const Holds& holds) {
    add<Request, Response>(
        method, runs, [family, handler](Session& session, const Request& request) { return (family->*handler)(session, request); },
        nullptr, &holds);
  }
  template <typename Family, typename Request, typename Response>
  void add(const std::string& method, Runs runs, Family* family,
           hal::Result<Response> (Family::*handler)(const Caller&, const Request&)) {
    addSessionless<Request, Response>(
        method, runs, [family, handler](const Caller& caller, const Request& request) { return (family->*handler)(caller, request); });
  }
  // And for free functions.
  template <typename Request, typename Response>
  void add(const std::string& method, Runs runs, hal::Result<Response> (*handler)(Session&, const Request&),
           const Holds* holds = nullptr) {
    add<Request, Response>(method, runs, SessionHandler<Request, Response>(handler), nullptr, holds);
  }

  const std::vector<RpcEntry>& entries() const { return entries_; }

 private:
  template <typename Response>
  static grpc::Status answer(hal::Result<Response> result, Response* response) {
    if (!result.ok()) return wire::toGrpcStatus(result.error());
    *response = std::move(result).value();
    return grpc::Status::OK;
  }

  template <typename Request, typename Response, typename Run>
  static RpcEntry entry(const std::string& method, Runs runs, Run run, ExecutionKey<Request> key) {
    RpcEntry entry;
    entry.method = method;
    entry.request = Request::descriptor();
    entry.response = Response::descriptor();
    entry.makeHandler = [runs, run = std::move(run), key](const RpcServices& services) -> grpc::internal::MethodHandler* {
      return new grpc::internal::CallbackUnaryHandler<Request, Response>(
          [runs, run, key, &services](grpc::CallbackServerContext* context, const Request* request,
                                      Response* response) {
            takeBackFromGrpc(&services);  // made by the thread that started the server
            grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
            // The request, response and context live until Finish, from whichever thread.
            auto handleAndFinish = [&services, run, context, request, response, reactor] {
              const grpc::Status status = run(services, *context, *request, response);
              handOffToGrpc(response);
              reactor->Finish(status);
            };
            switch (runs) {
              case Runs::kNow: handleAndFinish(); break;
              case Runs::kOnPool: services.pool.submit(std::move(handleAndFinish)); break;
              case Runs::kAsExecution: services.quick.run(key(*request), std::move(handleAndFinish)); break;
            }
            return reactor;
          });
    };
    return entry;
  }

  std::vector<RpcEntry> entries_;
};

// Marks each method of `table` in `service` (a generated Accelerator::CallbackService) as served
// by its handler. A method the table names that the service lacks, or whose request or response
// type differs, is a programming error: it aborts at startup, naming the method.
void serveRpcTable(const RpcTable& table, const RpcServices& services,
                   const google::protobuf::ServiceDescriptor& descriptor,
                   const std::function<void(int index, grpc::internal::MethodHandler*)>& markCallback);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_RPC_SCAFFOLD_H_
