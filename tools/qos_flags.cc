#include "tools/qos_flags.h"

#include <cerrno>
#include <cstdlib>

namespace nnremote::tools {

hal::Result<hal::Priority> priorityFlag(const Flags& flags) {
  const std::string value = flags.get("priority", "medium");
  if (value == "low") return hal::Priority::LOW;
  if (value == "medium") return hal::Priority::MEDIUM;
  if (value == "high") return hal::Priority::HIGH;
  return hal::invalidArgument() << "--priority must be low, medium or high, not '" << value << "'";
}

const char* priorityName(hal::Priority priority) {
  switch (priority) {
    case hal::Priority::LOW: return "low";
    case hal::Priority::MEDIUM: return "medium";
    case hal::Priority::HIGH: return "high";
  }
  return "?";
}

hal::Result<int64_t> boundedFlag(const Flags& flags, const std::string& name, int64_t fallback, int64_t min,
                                 int64_t max) {
  if (!flags.has(name)) return fallback;
  const std::string text = flags.get(name);
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < min || value > max) {
    return hal::invalidArgument() << "--" << name << " must be a whole number from " << min << " to " << max
                                  << ", not '" << text << "'";
  }
  return static_cast<int64_t>(value);
}

hal::Result<hal::OptionalDuration> deadlineFlag(const Flags& flags) {
  if (!flags.has("deadline-us")) return hal::OptionalDuration();
  // Up to a day; a deadline must lie in the future.
  NN_ASSIGN_OR_RETURN(const int64_t micros, boundedFlag(flags, "deadline-us", 0, 1, int64_t{86400} * 1000000));
  return hal::OptionalDuration(std::chrono::microseconds(micros));
}

}  // namespace nnremote::tools
