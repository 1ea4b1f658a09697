#include "tools/command_support.h"

#include <iomanip>
#include <iostream>
#include <sstream>

#include "hal/operand_types.h"

namespace nnremote::tools {

int fail(const std::string& command, const hal::Error& error) {
  std::cerr << "nnremote " << command << ": " << hal::toString(error.code) << ": " << error.message << "\n";
  return 1;
}

std::string formatDuration(const hal::OptionalDuration& duration) {
  if (!duration.has_value()) return "not available";
  std::ostringstream out;
  out << std::fixed << std::setprecision(3) << duration->count() / 1000.0 << " us";
  return out.str();
}

}  // namespace nnremote::tools
