#include "emulator/server_config.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <limits>

#include "emulator/server_config.pb.h"
#include "hal/file_contents.h"
#include "hal/textproto.h"

namespace nnremote::emulator {
namespace {

// The most a *_mib field takes: 1 PiB, past any machine's memory. Larger ones would wrap around in
// bytes (2^44 MiB is 0 bytes, which refused every client, or left gRPC's message memory at none).
constexpr uint64_t kMostMib = uint64_t{1} << 30;
constexpr uint64_t kMib = uint64_t{1} << 20;

// Takes an optional field into `out`, refusing 0, which `zero` says what it would mean (unless
// `zero` is null: then 0 is a value like any other). `scale` is 1, or kMib for a *_mib field.
template <typename Message, typename Value, typename Out>
hal::Status take(const Message& message, bool (Message::*has)() const, Value (Message::*get)() const, const char* field,
                 const std::string& origin, Out* out, uint64_t scale = 1,
                 const char* zero = "would refuse every client") {
  if (!(message.*has)()) return {};
  const Value value = (message.*get)();
  if (value == 0 && zero != nullptr) {
    return hal::invalidArgument() << origin << ": " << field << " = 0 " << zero << "; give at least 1, "
                                  << "or leave it out for the default (" << *out / scale << ")";
  }
  if (scale == kMib && static_cast<uint64_t>(value) > kMostMib) {
    return hal::invalidArgument() << origin << ": " << field << " = " << value << " is more than any machine has; "
                                  << "give at most " << kMostMib << " (1 PiB), or leave it out for the default ("
                                  << *out / scale << ")";
  }
  *out = static_cast<Out>(value) * static_cast<Out>(scale);
  return {};
}

template <typename Message, typename Value>
hal::Status takeMs(const Message& message, bool (Message::*has)() const, Value (Message::*get)() const,
                   const std::string& field, const std::string& origin, std::chrono::milliseconds* out,
                   const char* zero) {
  auto ms = static_cast<uint64_t>(out->count());
  NN_RETURN_IF_ERROR(take(message, has, get, field.c_str(), origin, &ms, 1, zero));
  *out = std::chrono::milliseconds(ms);
  return {};
}

// One BackendIsolation entry over `limits` (the defaults, or a library's copy of them).
hal::Status takeIsolation(const BackendIsolation& entry, const std::string& field, const std::string& origin,
                          IsolationLimits* limits) {
  using B = BackendIsolation;
  const char* never = "would never check";
  NN_RETURN_IF_ERROR(takeMs(entry, &B::has_health_check_interval_ms, &B::health_check_interval_ms,
                            field + ".health_check_interval_ms", origin, &limits->healthCheckInterval, never));
  NN_RETURN_IF_ERROR(takeMs(entry, &B::has_health_check_timeout_ms, &B::health_check_timeout_ms,
                            field + ".health_check_timeout_ms", origin, &limits->healthCheckTimeout,
                            "would kill every child"));
  const char* none = "is no limit, as leaving it out is";
  NN_RETURN_IF_ERROR(takeMs(entry, &B::has_call_timeout_ms, &B::call_timeout_ms, field + ".call_timeout_ms", origin,
                            &limits->callTimeout, none));
  NN_RETURN_IF_ERROR(
      takeMs(entry, &B::has_call_cpu_ms, &B::call_cpu_ms, field + ".call_cpu_ms", origin, &limits->callCpu, none));
  NN_RETURN_IF_ERROR(take(entry, &B::has_address_space_mib, &B::address_space_mib,
                          (field + ".address_space_mib").c_str(), origin, &limits->addressSpaceBytes, kMib, none));
  NN_RETURN_IF_ERROR(take(entry, &B::has_crash_loop_crashes, &B::crash_loop_crashes,
                          (field + ".crash_loop_crashes").c_str(), origin, &limits->crashLoopCrashes, 1,
                          "would make a library unavailable before it crashed"));
  uint64_t window = static_cast<uint64_t>(limits->crashLoopWindow.count());
  NN_RETURN_IF_ERROR(take(entry, &B::has_crash_loop_window_s, &B::crash_loop_window_s,
                          (field + ".crash_loop_window_s").c_str(), origin, &window, 1, "would see no crash loop"));
  limits->crashLoopWindow = std::chrono::seconds(window);
  NN_RETURN_IF_ERROR(takeMs(entry, &B::has_restart_backoff_ms, &B::restart_backoff_ms, field + ".restart_backoff_ms",
                            origin, &limits->restartBackoff, "would restart a crashing child in a tight loop"));
  return takeMs(entry, &B::has_restart_probation_ms, &B::restart_probation_ms, field + ".restart_probation_ms", origin,
                &limits->restartProbation, nullptr);
}

}  // namespace

uint64_t defaultServerPoolMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0) return uint64_t{4096} << 20;  // unknown: a small machine's half
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize) / 2;
}

uint32_t defaultSharedMemoryMappings() {
  uint64_t mappings = 65530;  // the kernel's default, if /proc does not say
  if (std::ifstream file("/proc/sys/vm/max_map_count"); file) file >> mappings;
  rlimit descriptors{};
  if (::getrlimit(RLIMIT_NOFILE, &descriptors) == 0 && descriptors.rlim_max != RLIM_INFINITY) {
    mappings = std::min<uint64_t>(mappings, descriptors.rlim_max);
  }
  return static_cast<uint32_t>(std::clamp<uint64_t>(mappings / 2, 1, std::numeric_limits<uint32_t>::max()));
}

hal::Result<ServerLimits> parseServerConfig(const std::string& textproto, const std::string& origin) {
  ServerConfig config;
  if (auto parsed = hal::parseTextProto(textproto, origin, &config); !parsed.ok()) {
    return hal::invalidArgument() << parsed.error().message << " (not a valid ServerConfig: see docs/scheduler.md)";
  }
  ServerLimits limits;
  const SessionQuotas& q = config.session_quotas();
  SessionLimits& s = limits.session;
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_prepared_models, &SessionQuotas::prepared_models,
                          "session_quotas.prepared_models", origin, &s.preparedModels));
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_registered_memory_mib, &SessionQuotas::registered_memory_mib,
                          "session_quotas.registered_memory_mib", origin, &s.registeredMemoryBytes, kMib));
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_registered_memories, &SessionQuotas::registered_memories,
                          "session_quotas.registered_memories", origin, &s.registeredMemories));
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_device_buffers, &SessionQuotas::device_buffers,
                          "session_quotas.device_buffers", origin, &s.deviceBuffers));
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_executions_in_flight, &SessionQuotas::executions_in_flight,
                          "session_quotas.executions_in_flight", origin, &s.executionsInFlight));
  NN_RETURN_IF_ERROR(
      take(q, &SessionQuotas::has_fences, &SessionQuotas::fences, "session_quotas.fences", origin, &s.fences));
  NN_RETURN_IF_ERROR(
      take(q, &SessionQuotas::has_bursts, &SessionQuotas::bursts, "session_quotas.bursts", origin, &s.bursts));
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_kept_executions, &SessionQuotas::kept_executions,
                          "session_quotas.kept_executions", origin, &s.keptExecutions));
  NN_RETURN_IF_ERROR(take(config, &ServerConfig::has_pool_memory_mib, &ServerConfig::pool_memory_mib, "pool_memory_mib",
                          origin, &s.serverPoolMemoryBytes, kMib));
  NN_RETURN_IF_ERROR(take(config, &ServerConfig::has_sessions_per_identity, &ServerConfig::sessions_per_identity,
                          "sessions_per_identity", origin, &s.sessionsPerIdentity));
  NN_RETURN_IF_ERROR(take(config, &ServerConfig::has_shared_memory_mappings, &ServerConfig::shared_memory_mappings,
                          "shared_memory_mappings", origin, &s.sharedMemoryMappings));
  NN_RETURN_IF_ERROR(take(config, &ServerConfig::has_message_memory_mib, &ServerConfig::message_memory_mib,
                          "message_memory_mib", origin, &s.messageMemoryBytes, kMib));
  NN_RETURN_IF_ERROR(takeMs(config, &ServerConfig::has_connection_handshake_ms, &ServerConfig::connection_handshake_ms,
                            "connection_handshake_ms", origin, &s.connectionHandshake,
                            "would close every connection before it spoke"));
  NN_RETURN_IF_ERROR(takeMs(config, &ServerConfig::has_connection_idle_ms, &ServerConfig::connection_idle_ms,
                            "connection_idle_ms", origin, &s.connectionIdle,
                            "would close every connection between its calls"));
  const Scheduling& sched = config.scheduling();
  NN_RETURN_IF_ERROR(take(sched, &Scheduling::has_queue_depth, &Scheduling::queue_depth, "scheduling.queue_depth",
                          origin, &limits.scheduling.queueDepth));
  if (sched.has_priority_aging_ms()) {
    uint32_t ms = 100;
    NN_RETURN_IF_ERROR(take(sched, &Scheduling::has_priority_aging_ms, &Scheduling::priority_aging_ms,
                            "scheduling.priority_aging_ms", origin, &ms));
    limits.scheduling.priorityAgingStep = std::chrono::milliseconds(ms);
  }
  for (int i = 0; i < config.identities_size(); ++i) {
    const IdentityAccess& access = config.identities(i);
    const std::string field = "identities[" + std::to_string(i) + "]";
    if (access.identity().empty()) return hal::invalidArgument() << origin << ": " << field << ".identity is empty";
    auto [entry, added] = limits.clientAccess.devicesOf.emplace(access.identity(), std::set<std::string>{});
    if (!added) {
      return hal::invalidArgument() << origin << ": " << field << ".identity '" << access.identity()
                                    << "' is listed twice";
    }
    entry->second.insert(access.devices().begin(), access.devices().end());
  }
  if (config.has_extension_allowlist()) {
    const ExtensionAllowlist& allowlist = config.extension_allowlist();
    ClientAccess::ExtensionAllowlist& granted = limits.clientAccess.extensions.emplace();
    granted.everyone.insert(allowlist.everyone().begin(), allowlist.everyone().end());
    for (int i = 0; i < allowlist.identities_size(); ++i) {
      const IdentityExtensions& entry = allowlist.identities(i);
      const std::string field = "extension_allowlist.identities[" + std::to_string(i) + "]";
      if (entry.identity().empty()) return hal::invalidArgument() << origin << ": " << field << ".identity is empty";
      auto [slot, added] = granted.extensionsOf.emplace(entry.identity(), std::set<std::string>{});
      if (!added) {
        return hal::invalidArgument() << origin << ": " << field << ".identity '" << entry.identity()
                                      << "' is listed twice";
      }
      slot->second.insert(entry.extensions().begin(), entry.extensions().end());
    }
  }
  // The defaults first, so that every library's entry starts from them.
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = 0; i < config.backend_isolation_size(); ++i) {
      const BackendIsolation& entry = config.backend_isolation(i);
      const std::string field = "backend_isolation[" + std::to_string(i) + "]";
      if (entry.library().empty() != (pass == 0)) continue;
      if (entry.library().empty()) {
        NN_RETURN_IF_ERROR(takeIsolation(entry, field, origin, &limits.isolation));
        continue;
      }
      if (entry.library().find('/') != std::string::npos) {
        return hal::invalidArgument() << origin << ": " << field << ".library '" << entry.library()
                                      << "' must be a file name (e.g. armnn_backend.so), not a path";
      }
      auto [slot, added] = limits.isolationOf.emplace(entry.library(), limits.isolation);
      if (!added) {
        return hal::invalidArgument() << origin << ": " << field << ".library '" << entry.library()
                                      << "' is listed twice";
      }
      NN_RETURN_IF_ERROR(takeIsolation(entry, field, origin, &slot->second));
    }
  }
  if (std::count_if(config.backend_isolation().begin(), config.backend_isolation().end(),
                    [](const BackendIsolation& entry) { return entry.library().empty(); }) > 1) {
    return hal::invalidArgument() << origin << ": backend_isolation has more than one entry without a library";
  }
  return limits;
}

const IsolationLimits& ServerLimits::isolationFor(const std::string& path) const {
  const size_t slash = path.rfind('/');
  const auto it = isolationOf.find(slash == std::string::npos ? path : path.substr(slash + 1));
  return it != isolationOf.end() ? it->second : isolation;
}

hal::Result<ServerLimits> loadServerConfig(const std::string& path) {
  auto text = hal::readFileContents(path);
  if (!text.ok()) return hal::withContext(text.error(), "server config");
  return parseServerConfig(*text, path);
}

}  // namespace nnremote::emulator
