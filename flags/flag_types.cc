#include "flags/flag_types.h"

#include "hal/operand_types.h"
#include "hal/vlog.h"

namespace nnremote::flags {

bool AbslParseFlag(absl::string_view text, VlogTags* tags, std::string* error) {
  auto mask = hal::vlogMaskFrom(std::string(text));
  if (!mask.ok()) {
    *error = mask.error().message;
    return false;
  }
  tags->list = std::string(text);
  return true;
}

std::string AbslUnparseFlag(const VlogTags& tags) { return tags.list; }

}  // namespace nnremote::flags

namespace nnremote::hal {

bool AbslParseFlag(absl::string_view text, Priority* priority, std::string* error) {
  for (const Priority candidate : {Priority::LOW, Priority::MEDIUM, Priority::HIGH}) {
    if (text == hal::priorityName(candidate)) {
      *priority = candidate;
      return true;
    }
  }
  *error = "must be low, medium or high";
  return false;
}

std::string AbslUnparseFlag(Priority priority) { return hal::priorityName(priority); }

}  // namespace nnremote::hal
