#include "emulator/execution_requests.h"

#include <algorithm>
#include <vector>

#include "emulator/wire_traffic.h"
#include "hal/memory.h"
#include "hal/operand_types.h"
#include "hal/validation.h"
#include "hal/vlog.h"
#include "wire/grpc_status.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;

namespace {

// Wire durations are unsigned nanoseconds; clients send none longer than this (about 146 years),
// so a longer one is malformed.
constexpr uint64_t kLongestWireDuration = hal::kLongestDuration.count();

// Sends back what an execution wrote to each output whose pool travelled by value: inline when
// small, else as a pending download.
void collectOutputs(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                    const hal::Model& model, const hal::ExecutionOutcome& outcome, wire::ExecutionOutcome* response) {
  for (size_t i = 0; i < request.outputs.size(); ++i) {
    std::string* data = response->add_output_data();
    const auto& location = request.outputs[i].location;
    if (!wire::outputTravelsBack(wireRequest, i)) {
      // Written in place: shared memory (or a device buffer, which stays on the server).
      if (location.poolIndex < request.pools.size() &&
          std::holds_alternative<hal::SharedMemory>(request.pools[location.poolIndex])) {
        countTraffic(Direction::OUT, Transport::SHARED_MEMORY, location.length);
      }
      continue;
    }
    const auto& memory = std::get<hal::SharedMemory>(request.pools[location.poolIndex]);
    uint64_t length = location.length;
    const hal::OperandType type = model.main.operands[model.main.outputIndexes[i]].type;
    // Only the bytes the result takes travel back; an extension type's size is the device's to
    // know, so all of its buffer does.
    if (i < outcome.outputShapes.size() && !hal::isExtension(type)) {
      length = std::min<uint64_t>(length, hal::sizeOfData(type, outcome.outputShapes[i].dimensions)
                                              .value_or(location.length));
    }
    if (length > kMaxInlineOutputBytes) {
      (*response->mutable_output_bulk_transfer_ids())[static_cast<uint32_t>(i)] =
          session.downloads.add({memory, location.offset, length});
      countTraffic(Direction::OUT, Transport::BULK, length);
      continue;
    }
    data->assign(reinterpret_cast<const char*>(memory->data() + location.offset), length);
    countTraffic(Direction::OUT, Transport::INLINE, length);
  }
}

// The bytes the server holds for `memory` while a call uses it, out of its pool memory: an
// inline pool's (allocated as it is decoded) or an upload's (held already); else none.
uint64_t serverAllocatedBytes(Session& session, const wire::Memory& memory) {
  if (memory.has_inline_data()) {
    const uint64_t size = memory.inline_data().size();
    return size <= wire::kMaxInlineMemoryBytes ? size : 0;  // a larger one is malformed: decoding says so
  }
  if (memory.kind_case() == wire::Memory::kBulkTransferId) {
    if (auto upload = session.uploads.find(memory.bulk_transfer_id()); upload.ok()) return (*upload)->size();
  }
  return 0;
}

// The bytes the server holds for one call's pools together. An upload named twice counts once:
// decoding takes it at its first use and rejects the second with INVALID_ARGUMENT, which is the
// answer such a request should get, not one about bytes it would never take.
class CallPoolBytes {
 public:
  explicit CallPoolBytes(Session& session) : session_(session) {}
  void add(const wire::Memory& pool) {
    if (pool.kind_case() == wire::Memory::kBulkTransferId) {
      if (std::find(uploads_.begin(), uploads_.end(), pool.bulk_transfer_id()) != uploads_.end()) return;
      uploads_.push_back(pool.bulk_transfer_id());
    }
    bytes_ += serverAllocatedBytes(session_, pool);
  }
  uint64_t bytes() const { return bytes_; }

 private:
  Session& session_;
  std::vector<uint64_t> uploads_;  // few: a call names a handful of pools
  uint64_t bytes_ = 0;
};

}  // namespace

wire::MemoryResolver resolverFor(Session& session) {
  return [&session](const wire::Memory& memory) -> hal::Result<hal::SharedMemory> {
    Transport transport = Transport::INLINE;
    auto resolve = [&]() -> hal::Result<hal::SharedMemory> {
      switch (memory.kind_case()) {
        case wire::Memory::kRegisteredMemoryId:
          transport = Transport::SHARED_MEMORY;
          return session.registeredMemories.find(memory.registered_memory_id());
        case wire::Memory::kBulkTransferId:
          transport = Transport::BULK;
          return session.uploads.take(memory.bulk_transfer_id());
        case wire::Memory::kInlineData: {
          // Allocated here, so counted in the session's quota and the server's pool memory
          // until the server lets go of it (a reusable execution, a burst's cache and an
          // output waiting for DownloadBulk keep it).
          const uint64_t size = memory.inline_data().size();
          if (size > wire::kMaxInlineMemoryBytes) return wire::resolveInlineOnly(memory);  // malformed
          return session.holdMemory(size, Session::PoolOrigin::kServerAllocated, "an inline pool",
                                    [&] { return wire::resolveInlineOnly(memory); });
        }
        default:
          return wire::resolveInlineOnly(memory);
      }
    };
    hal::Result<hal::SharedMemory> resolved = resolve();
    if (resolved.ok() && *resolved != nullptr) countTraffic(Direction::IN, transport, (*resolved)->size());
    return resolved;
  };
}

hal::Status checkServerPoolsCouldFit(Session& session, const wire::Request& request) {
  CallPoolBytes pools(session);
  for (const wire::RequestMemoryPool& pool : request.pools()) {
    if (pool.has_memory()) pools.add(pool.memory());
  }
  return session.checkPoolsCouldFit(pools.bytes(), Session::PoolOrigin::kServerAllocated,
                                    "the request's inline pools and uploads together");
}

hal::Status checkServerPoolsCouldFit(Session& session, const wire::Model& model) {
  CallPoolBytes pools(session);
  for (const wire::Memory& pool : model.pools()) pools.add(pool);
  return session.checkPoolsCouldFit(pools.bytes(), Session::PoolOrigin::kServerAllocated,
                                    "the model's inline pools and uploads together");
}

// Replaces the memory-domain tokens of a request with the session's device buffers, so only
// buffers this session allocated can be used.
hal::Status resolveBuffers(Session& session, hal::Request* request) {
  for (size_t i = 0; i < request->pools.size(); ++i) {
    const auto* token = std::get_if<hal::Request::MemoryDomainToken>(&request->pools[i]);
    if (token == nullptr) continue;
    auto buffer = session.buffers.find(static_cast<uint32_t>(*token));
    if (!buffer.ok()) return hal::withContext(buffer.error(), "request.pools[" + std::to_string(i) + "]");
    request->pools[i] = *buffer;
  }
  return {};
}

hal::Status checkWireDuration(uint64_t nanoseconds, const char* field) {
  if (nanoseconds <= kLongestWireDuration) return {};
  return makeError(ErrorStatus::INVALID_ARGUMENT) << field << " = " << nanoseconds
                                                  << " ns is longer than the longest duration this server accepts ("
                                                  << kLongestWireDuration << " ns)";
}

// Counts an execution against its session's executions_in_flight while alive.
hal::Result<QuotaSlot> enterExecution(Session& session) {
  return QuotaSlot::take(session.executionsInFlight, session.limits().executionsInFlight,
                         ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT, "executions in flight",
                         "session_quotas.executions_in_flight");
}

namespace {

// hal::checkNotTruncated for the pools of a request (its shared memories) and of its model.
hal::Status checkNotTruncated(const hal::Request& request, const hal::Model& model) {
  for (size_t i = 0; i < request.pools.size(); ++i) {
    const auto* memory = std::get_if<hal::SharedMemory>(&request.pools[i]);
    // Named only when refused: this runs twice on every execution.
    if (memory != nullptr && *memory != nullptr && (*memory)->truncated()) {
      return hal::checkNotTruncated(*memory, "request pool " + std::to_string(i));
    }
  }
  return hal::checkNotTruncated(model.pools, "the prepared model's pool");
}

}  // namespace

hal::Result<ValidatedExecution> validateExecution(Session& session, PreparedModelEntry entry,
                                                  const ExecutionCall& call) {
  ValidatedExecution v;
  v.entry = std::move(entry);
  if (call.deadline != nullptr) {
    NN_RETURN_IF_ERROR(checkWireDuration(call.deadline->nanoseconds_from_now(), "deadline.nanoseconds_from_now"));
    v.deadline = wire::deadlineFromWire(*call.deadline, /*present=*/true);
  }
  if (call.measure != wire::MEASURE_TIMING_NO && call.measure != wire::MEASURE_TIMING_YES) {
    return hal::makeError(hal::ErrorStatus::INVALID_ARGUMENT)
           << "measure = " << call.measure << " is not a valid MeasureTiming";
  }
  v.measure = call.measure == wire::MEASURE_TIMING_YES ? hal::MeasureTiming::YES : hal::MeasureTiming::NO;
  if (call.loopTimeout != nullptr) {
    NN_RETURN_IF_ERROR(checkWireDuration(call.loopTimeout->nanoseconds(), "loop_timeout_duration"));
    v.loopTimeout = hal::Duration(call.loopTimeout->nanoseconds());
  }
  // Cached pools stand in for the request's own entries, which are emptied before decoding (a
  // copy of the request is patched only when there are any).
  if (call.cachedPools != nullptr && !call.cachedPools->empty()) {
    wire::Request& patched = v.patchedRequest.emplace(*call.request);
    for (const auto& [pool, memory] : *call.cachedPools) {
      if (pool >= static_cast<uint32_t>(patched.pools_size())) {
        return hal::makeError(hal::ErrorStatus::INVALID_ARGUMENT)
               << "pool_slots names request.pools[" << pool << "], but the request has " << patched.pools_size()
               << " pools";
      }
      patched.mutable_pools(static_cast<int>(pool))->mutable_memory()->mutable_inline_data()->set_size(0);
    }
  }
  NN_RETURN_IF_ERROR(checkServerPoolsCouldFit(session, v.wireRequest(*call.request)));
  NN_ASSIGN_OR_RETURN(v.request, wire::fromWire(v.wireRequest(*call.request), resolverFor(session)));
  NN_RETURN_IF_ERROR(resolveBuffers(session, &v.request));
  if (call.cachedPools != nullptr) {
    for (const auto& [pool, memory] : *call.cachedPools) v.request.pools[pool] = memory;
  }
  NN_RETURN_IF_ERROR(hal::validateRequestForModel(v.request, *v.entry.model, /*allowPointers=*/false));
  // Shrunk by their owner under an earlier call (the resolver and a burst's cache hand them out
  // as they are), the pools hold zeros the client never sees.
  NN_RETURN_IF_ERROR(checkNotTruncated(v.request, *v.entry.model));
  NN_ASSIGN_OR_RETURN(QuotaSlot slot, enterExecution(session));
  v.inFlight.emplace(std::move(slot));
  return v;
}

namespace {

// What makes an answer void whatever the device says: a pool shrunk under the execution by its
// owner (the client's doing: its outputs never reached it), or output shapes that break the HAL's
// rules (a backend library's bug, its GENERAL_FAILURE: clients size buffers from them).
hal::Status checkAnswer(const hal::Request& request, const hal::Model& model,
                        const hal::Result<hal::ExecutionOutcome>& outcome) {
  NN_RETURN_IF_ERROR(checkNotTruncated(request, model));
  return hal::validateExecutionOutcome(outcome, model.main.operands, model.main.outputIndexes);
}

// describeOutcome once the outcome is known to be well formed.
void describeWellFormed(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                        const hal::Model& model, const hal::Result<hal::ExecutionOutcome>& outcome,
                        wire::ExecutionOutcome* described) {
  if (!outcome.ok()) {
    *described->mutable_error() = wire::toWire(outcome.error());
    return;
  }
  for (const auto& shape : outcome->outputShapes) *described->add_output_shapes() = wire::toWire(shape);
  *described->mutable_timing() = wire::toWire(outcome->timing);
  if (outcome->profile) *described->mutable_profile() = wire::toWire(*outcome->profile);
  collectOutputs(session, wireRequest, request, model, *outcome, described);
}

}  // namespace

hal::Status describeOutcome(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                            const hal::Model& model, const hal::Result<hal::ExecutionOutcome>& outcome,
                            wire::ExecutionOutcome* described) {
  if (hal::Status valid = checkAnswer(request, model, outcome); !valid.ok()) {
    *described->mutable_error() = wire::toWire(valid.error());
    return valid;
  }
  describeWellFormed(session, wireRequest, request, model, outcome, described);
  if (!outcome.ok()) return outcome.error();
  return {};
}

hal::Result<wire::ExecuteResponse> respond(Session& session, const wire::Request& wireRequest, const hal::Request& request,
                                           const hal::Model& model, const hal::Result<hal::ExecutionOutcome>& outcome) {
  NN_VLOG(EXECUTION) << "session " << session.id() << " execution: " << model.main.operations.size() << " operations, "
                     << (outcome.ok() ? std::string("NO_ERROR") : std::string(hal::toString(outcome.error().code)) + " (" +
                                                                      outcome.error().message + ")")
                     << (outcome.ok() && outcome->timing.timeOnDevice.has_value()
                             ? ", device " + std::to_string(outcome->timing.timeOnDevice->count() / 1000) + " us"
                             : std::string());
  NN_RETURN_IF_ERROR(checkAnswer(request, model, outcome));
  if (!outcome.ok()) return outcome.error();
  wire::ExecuteResponse response;
  describeWellFormed(session, wireRequest, request, model, outcome, response.mutable_outcome());
  return response;
}
}  // namespace nnremote::emulator
