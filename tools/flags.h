// Minimal --name=value flag parsing for the nnremote tools.
#ifndef NNREMOTE_TOOLS_FLAGS_H_
#define NNREMOTE_TOOLS_FLAGS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "hal/result.h"

namespace nnremote::tools {

class Flags {
 public:
  // Parses args of the form --name=value or --name (a boolean). Fails on a flag not in
  // `known` or on a positional argument.
  static hal::Result<Flags> parse(const std::vector<std::string>& args,
                                  const std::set<std::string>& known);

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::string get(const std::string& name, const std::string& fallback = "") const {
    const auto it = values_.find(name);
    return it == values_.end() ? fallback : it->second;
  }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_FLAGS_H_
