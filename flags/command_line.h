// Command lines of both binaries, parsed by absl's flags library.
#ifndef NNREMOTE_FLAGS_COMMAND_LINE_H_
#define NNREMOTE_FLAGS_COMMAND_LINE_H_

#include <set>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/flags/flag.h"
#include "hal/result.h"

namespace nnremote::flags {

// Parses argv with absl: --name=VALUE or --name VALUE, --BOOL and --noBOOL, and
// --flagfile=FILE (one flag per line, # comments; files may name further flag files), as farm
// deployments keep them. Then applies --vlog, which every binary takes.
//
// --help or -h prints `usage` and exits 0; --helpfull prints it followed by every flag with its
// type and default. A usage error (an unknown flag, a value of the wrong type or out of range)
// is printed naming the flag, and exits 2, as these binaries always have, so that scripts can
// tell a wrong command line from a run that failed (1).
//
// Returns the positional arguments, argv[0] excluded.
std::vector<std::string> parseCommandLine(int argc, char** argv, const char* usage);

// Whether the flag was given, on the command line or in a flag file.
bool wasGiven(absl::string_view name);
template <typename T>
bool wasGiven(const absl::Flag<T>& flag) {
  const absl::CommandLineFlag& handle = absl::GetFlagReflectionHandle(flag);
  return wasGiven(handle.Name());
}

// INVALID_ARGUMENT naming the first flag given that `accepted` (spelled names) does not hold.
// absl's flags are global to a binary; this gives each of a binary's commands its own set.
// --flagfile, --fromenv, --tryfromenv, --undefok and --vlog are always accepted.
hal::Status checkOnlyAcceptedFlagsGiven(const std::set<std::string>& accepted);

}  // namespace nnremote::flags

#endif  // NNREMOTE_FLAGS_COMMAND_LINE_H_
