#include "emulator/server_config.h"

#include <google/protobuf/text_format.h>


#include "emulator/server_config.pb.h"
#include "hal/file_contents.h"

namespace nnremote::emulator {
namespace {

// Takes an optional field into `out`, refusing 0.
template <typename Message, typename Value, typename Out>
hal::Status take(const Message& message, bool (Message::*has)() const, Value (Message::*get)() const,
                 const char* field, const std::string& origin, Out* out, uint64_t scale = 1) {
  if (!(message.*has)()) return {};
  const Value value = (message.*get)();
  if (value == 0) {
    return hal::invalidArgument() << origin << ": " << field << " = 0 would refuse every client; give at least 1, "
                                  << "or leave it out for the default (" << *out / scale << ")";
  }
  *out = static_cast<Out>(value) * static_cast<Out>(scale);
  return {};
}

}  // namespace

hal::Result<ServerLimits> parseServerConfig(const std::string& textproto, const std::string& origin) {
  ServerConfig config;
  google::protobuf::TextFormat::Parser parser;
  if (!parser.ParseFromString(textproto, &config)) {
    return hal::invalidArgument() << origin << " is not a valid ServerConfig textproto (see docs/scheduler.md)";
  }
  ServerLimits limits;
  const SessionQuotas& q = config.session_quotas();
  SessionLimits& s = limits.session;
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_prepared_models, &SessionQuotas::prepared_models,
                          "session_quotas.prepared_models", origin, &s.preparedModels));
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_registered_memory_mib, &SessionQuotas::registered_memory_mib,
                          "session_quotas.registered_memory_mib", origin, &s.registeredMemoryBytes, uint64_t{1} << 20));
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_device_buffers, &SessionQuotas::device_buffers,
                          "session_quotas.device_buffers", origin, &s.deviceBuffers));
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_executions_in_flight, &SessionQuotas::executions_in_flight,
                          "session_quotas.executions_in_flight", origin, &s.executionsInFlight));
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_fences, &SessionQuotas::fences, "session_quotas.fences", origin,
                          &s.fences));
  NN_RETURN_IF_ERROR(take(q, &SessionQuotas::has_bursts, &SessionQuotas::bursts, "session_quotas.bursts", origin,
                          &s.bursts));
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
  return limits;
}

hal::Result<ServerLimits> loadServerConfig(const std::string& path) {
  auto text = hal::readFileContents(path);
  if (!text.ok()) return hal::withContext(text.error(), "server config");
  return parseServerConfig(*text, path);
}

}  // namespace nnremote::emulator
