// Extension prefixes for the NDK's getExtensionOperandType and getExtensionOperationType: from 1
// in the order names are first asked for, fixed for the process (AOSP's TypeManager does the
// same), so a model and the models it references agree on every prefix.
#ifndef NNREMOTE_RUNTIME_EXTENSION_PREFIXES_H_
#define NNREMOTE_RUNTIME_EXTENSION_PREFIXES_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hal/types.h"

namespace nnremote::runtime {

// The prefix of an extension operand or operation type code (0 for a built-in one).
inline uint16_t prefixOf(int32_t code) {
  return static_cast<uint16_t>(static_cast<uint32_t>(code) >> hal::kExtensionTypeBits);
}

class ExtensionPrefixes {
 public:
  static ExtensionPrefixes& get();

  // `name`'s prefix, given it on first use; nullopt once all 65535 are taken.
  std::optional<uint16_t> prefixFor(const std::string& name);
  // The extension given `prefix`, if any.
  std::optional<std::string> nameOf(uint16_t prefix) const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, uint16_t> byName_;
  std::vector<std::string> names_;  // names_[p - 1] has prefix p
};

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_EXTENSION_PREFIXES_H_
