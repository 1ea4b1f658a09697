// The process's extension prefixes (extension_prefixes.h).
#include "runtime/extension_prefixes.h"

#include <limits>

namespace nnremote::runtime {

ExtensionPrefixes& ExtensionPrefixes::get() {
  static ExtensionPrefixes* const kPrefixes = new ExtensionPrefixes();
  return *kPrefixes;
}

std::optional<uint16_t> ExtensionPrefixes::prefixFor(const std::string& name) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = byName_.find(name);
  if (it != byName_.end()) return it->second;
  if (names_.size() >= std::numeric_limits<uint16_t>::max()) return std::nullopt;
  names_.push_back(name);
  const auto prefix = static_cast<uint16_t>(names_.size());
  byName_.emplace(name, prefix);
  return prefix;
}

std::optional<std::string> ExtensionPrefixes::nameOf(uint16_t prefix) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (prefix == 0 || prefix > names_.size()) return std::nullopt;
  return names_[prefix - 1];
}

}  // namespace nnremote::runtime
