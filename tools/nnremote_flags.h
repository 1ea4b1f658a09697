// nnremote's flags, all of them: absl flags are global to a binary, and each command takes the
// subset nnremote_main.cc lists for it (flags::checkOnlyAcceptedFlagsGiven).
#ifndef NNREMOTE_TOOLS_NNREMOTE_FLAGS_H_
#define NNREMOTE_TOOLS_NNREMOTE_FLAGS_H_

#include <optional>
#include <string>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/time/time.h"
#include "flags/flag_types.h"
#include "hal/types.h"

namespace nnremote::tools {

using ClientCount = flags::WholeNumber<1, 1024>;
using LoadSeconds = flags::WholeNumber<1, 86400>;
using IdleSessionCount = flags::WholeNumber<0, 100000>;
using DeviceCount = flags::WholeNumber<1, 100000>;
using DeadlineMicros = flags::WholeNumber<1, int64_t{86400} * 1000000>;  // up to a day

// --deadline-us as a duration from the start of each execution; none if not given.
hal::OptionalDuration deadlineFromFlags();

}  // namespace nnremote::tools

// Connections (tools/connection_flags.h).
ABSL_DECLARE_FLAG(std::string, target);
ABSL_DECLARE_FLAG(std::string, tls_ca);
ABSL_DECLARE_FLAG(std::string, tls_cert);
ABSL_DECLARE_FLAG(std::string, tls_key);
ABSL_DECLARE_FLAG(std::string, tls_server_name);
ABSL_DECLARE_FLAG(std::string, token_file);
ABSL_DECLARE_FLAG(bool, no_reconnect);
ABSL_DECLARE_FLAG(absl::Duration, wait);
// Farms (tools/farm_command.cc).
ABSL_DECLARE_FLAG(std::string, etcd);
ABSL_DECLARE_FLAG(std::string, pool);
ABSL_DECLARE_FLAG(nnremote::tools::DeviceCount, devices);
ABSL_DECLARE_FLAG(std::string, shard);
// What to run, and how.
ABSL_DECLARE_FLAG(std::string, device);
ABSL_DECLARE_FLAG(std::string, model);
ABSL_DECLARE_FLAG(std::string, cases);
ABSL_DECLARE_FLAG(std::string, config);
ABSL_DECLARE_FLAG(nnremote::hal::Priority, priority);
ABSL_DECLARE_FLAG(std::optional<nnremote::tools::DeadlineMicros>, deadline_us);
ABSL_DECLARE_FLAG(std::string, executor);
ABSL_DECLARE_FLAG(std::string, memory);
ABSL_DECLARE_FLAG(bool, in_process);
ABSL_DECLARE_FLAG(std::string, cache_dir);
ABSL_DECLARE_FLAG(nnremote::tools::ClientCount, clients);
ABSL_DECLARE_FLAG(nnremote::tools::LoadSeconds, seconds);
ABSL_DECLARE_FLAG(nnremote::tools::IdleSessionCount, idle_sessions);
ABSL_DECLARE_FLAG(std::string, recording);
ABSL_DECLARE_FLAG(bool, exact);
ABSL_DECLARE_FLAG(std::string, scalesim_config);
ABSL_DECLARE_FLAG(std::string, topology);
ABSL_DECLARE_FLAG(bool, gemm);
ABSL_DECLARE_FLAG(bool, count_cycles);
// What to write.
ABSL_DECLARE_FLAG(std::string, junit);
ABSL_DECLARE_FLAG(std::string, json);
ABSL_DECLARE_FLAG(std::string, html);
ABSL_DECLARE_FLAG(std::string, output);
ABSL_DECLARE_FLAG(std::string, format);
ABSL_DECLARE_FLAG(bool, verbose);

#endif  // NNREMOTE_TOOLS_NNREMOTE_FLAGS_H_
