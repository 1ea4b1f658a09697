// The server-wide settings of npu_emulator: session quotas and scheduling (server_config.proto),
// with their defaults applied.
#ifndef NNREMOTE_EMULATOR_SERVER_CONFIG_H_
#define NNREMOTE_EMULATOR_SERVER_CONFIG_H_

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::emulator {

// Half of this machine's physical memory: what the server's clients may have it allocate for
// their pools, together, unless its config says otherwise.
uint64_t defaultServerPoolMemoryBytes();

// Half of the lesser of this process's limits on mappings (vm.max_map_count) and descriptors
// (RLIMIT_NOFILE's hard limit, which a server raises its own to): what the server's clients may
// have it map of their shared memory, together, unless its config says otherwise.
uint32_t defaultSharedMemoryMappings();

// The limits sessions live under: each session's own, what they share (pool memory, shared
// memory mappings, messages in transit), and how long their connections may stay silent.
struct SessionLimits {
  uint32_t preparedModels = 256;
  uint64_t registeredMemoryBytes = uint64_t{8192} << 20;
  uint32_t registeredMemories = 4096;
  uint32_t deviceBuffers = 1024;
  uint32_t executionsInFlight = 256;
  uint32_t fences = 4096;
  uint32_t bursts = 256;
  uint32_t keptExecutions = 4096;
  // Every session's together (ServerConfig.pool_memory_mib).
  uint64_t serverPoolMemoryBytes = defaultServerPoolMemoryBytes();
  // Every session's shared memory mapped, together (ServerConfig.shared_memory_mappings).
  uint32_t sharedMemoryMappings = defaultSharedMemoryMappings();
  // Open sessions of one client identity (ServerConfig.sessions_per_identity).
  uint32_t sessionsPerIdentity = 16384;
  // What gRPC may hold for every client's messages in transit (ServerConfig.message_memory_mib).
  uint64_t messageMemoryBytes = uint64_t{1} << 30;
  // How long a connection may stay silent before its first message, and without a call in
  // progress (ServerConfig.connection_handshake_ms, connection_idle_ms).
  std::chrono::milliseconds connectionHandshake{20000};
  std::chrono::milliseconds connectionIdle{300000};
};

struct SchedulingLimits {
  uint32_t queueDepth = 1024;
  hal::Duration priorityAgingStep = std::chrono::milliseconds(100);
};

// What each client identity may see and use (docs/security.md, docs/extensions.md).
struct ClientAccess {
  // Devices, for the identities listed; identities not listed see them all.
  std::map<std::string, std::set<std::string>> devicesOf;

  // Vendor extensions. Without an allowlist every client may use every extension its devices
  // offer; with one, only those it grants (to everyone, or to an identity).
  struct ExtensionAllowlist {
    std::set<std::string> everyone;
    std::map<std::string, std::set<std::string>> extensionsOf;
  };
  std::optional<ExtensionAllowlist> extensions;

  bool allows(const std::string& identity, const std::string& deviceName) const {
    const auto it = devicesOf.find(identity);
    return it == devicesOf.end() || it->second.count(deviceName) != 0;
  }

  bool allowsExtension(const std::string& identity, const std::string& extension) const {
    if (!extensions.has_value() || extensions->everyone.count(extension) != 0) return true;
    const auto it = extensions->extensionsOf.find(identity);
    return it != extensions->extensionsOf.end() && it->second.count(extension) != 0;
  }
};

// How one backend library's child process is supervised and limited (BackendIsolation in
// server_config.proto). A zero duration or size is no limit.
struct IsolationLimits {
  std::chrono::milliseconds healthCheckInterval{1000};
  std::chrono::milliseconds healthCheckTimeout{2000};
  std::chrono::milliseconds callTimeout{0};
  std::chrono::milliseconds callCpu{0};
  uint64_t addressSpaceBytes = 0;
  uint32_t crashLoopCrashes = 5;
  std::chrono::seconds crashLoopWindow{60};
  std::chrono::milliseconds restartBackoff{100};
  std::chrono::milliseconds restartProbation{1000};
};

struct ServerLimits {
  SessionLimits session;
  SchedulingLimits scheduling;
  ClientAccess clientAccess;
  IsolationLimits isolation;                           // every library's
  std::map<std::string, IsolationLimits> isolationOf;  // by library file name

  // The limits of the library at `path` (its file name looked up in isolationOf).
  const IsolationLimits& isolationFor(const std::string& path) const;
};

// Parses a ServerConfig textproto; `origin` names it in errors, which name the bad field.
// Device names in `identities` are checked against the served devices at server start.
hal::Result<ServerLimits> parseServerConfig(const std::string& textproto, const std::string& origin);
hal::Result<ServerLimits> loadServerConfig(const std::string& path);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_SERVER_CONFIG_H_
