// The QoS flags commands share: --priority=low|medium|high and --deadline-us=D.
#ifndef NNREMOTE_TOOLS_QOS_FLAGS_H_
#define NNREMOTE_TOOLS_QOS_FLAGS_H_

#include "hal/result.h"
#include "hal/types.h"
#include "tools/flags.h"

namespace nnremote::tools {

// --priority (default medium).
hal::Result<hal::Priority> priorityFlag(const Flags& flags);
const char* priorityName(hal::Priority priority);
// --deadline-us: microseconds from the start of each execution, a whole number > 0; none if
// absent.
hal::Result<hal::OptionalDuration> deadlineFlag(const Flags& flags);
// A whole-number flag within [min, max], or `fallback` when absent.
hal::Result<int64_t> boundedFlag(const Flags& flags, const std::string& name, int64_t fallback, int64_t min,
                                 int64_t max);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_QOS_FLAGS_H_
