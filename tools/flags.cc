#include "tools/flags.h"

namespace nnremote::tools {

hal::Result<Flags> Flags::parse(const std::vector<std::string>& args,
                                const std::set<std::string>& known) {
  Flags flags;
  for (const std::string& arg : args) {
    if (arg.rfind("--", 0) != 0) {
      return hal::invalidArgument() << "unexpected argument '" << arg << "'";
    }
    const size_t equals = arg.find('=');
    const std::string name = arg.substr(2, equals == std::string::npos ? std::string::npos : equals - 2);
    if (known.count(name) == 0) return hal::invalidArgument() << "unknown flag --" << name;
    flags.values_[name] = equals == std::string::npos ? "true" : arg.substr(equals + 1);
  }
  return flags;
}

}  // namespace nnremote::tools
