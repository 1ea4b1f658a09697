#include "flags/command_line.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "absl/flags/internal/parse.h"
#include "absl/flags/internal/usage.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "flags/flag_types.h"
#include "flags/named_flag.h"
#include "hal/vlog.h"

NNREMOTE_FLAG(nnremote::flags::VlogTags, vlog, "vlog", {},
              "log to stderr by tag: compilation, execution, burst, fence, wire, runtime, or all "
              "(comma-separated; as NNREMOTE_VLOG=TAGS)");

namespace nnremote::flags {
namespace {

// absl reports a usage error and calls std::exit(1). Our binaries exit 2 on usage errors, and 1
// means "ran and failed" (a conformance failure, say), so while absl parses, an exit is turned
// into status 2. Only usage errors exit there: usage flags are handled after parsing.
std::atomic<bool> parsing{false};

void exitAsUsageError() {
  if (!parsing.load()) return;
  std::cout.flush();
  std::cerr.flush();
  std::_Exit(2);
}

bool asksForHelp(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) return false;
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> parseCommandLine(int argc, char** argv, const char* usage) {
  if (asksForHelp(argc, argv)) {
    std::cout << usage;
    std::exit(0);
  }
  absl::SetProgramUsageMessage(usage);
  std::atexit(exitAsUsageError);
  parsing = true;
  const std::vector<char*> positional = absl::flags_internal::ParseCommandLineImpl(
      argc, argv, absl::flags_internal::ArgvListAction::kRemoveParsedArgs,
      absl::flags_internal::UsageFlagsAction::kIgnoreUsage, absl::flags_internal::OnUndefinedFlag::kAbortIfUndefined);
  parsing = false;
  // --helpfull, --helpshort, --version and the like.
  if (const int exitCode = absl::flags_internal::HandleUsageFlags(std::cout, usage); exitCode != -1) {
    std::exit(exitCode);
  }
  if (wasGiven(FLAGS_vlog)) {
    // Checked as it was parsed (VlogTags), so this cannot fail.
    (void)hal::setVlogTags(absl::GetFlag(FLAGS_vlog).list);
  }
  return {positional.begin() + 1, positional.end()};
}

bool wasGiven(absl::string_view name) { return absl::flags_internal::WasPresentOnCommandLine(name); }

hal::Status checkOnlyAcceptedFlagsGiven(const std::set<std::string>& accepted) {
  static const std::set<std::string> kAlwaysAccepted = {"flagfile", "fromenv", "tryfromenv", "undefok", "vlog"};
  std::set<std::string> given;  // sorted, so the error is the same from run to run
  for (const auto& [name, flag] : absl::GetAllFlags()) {
    if (wasGiven(name)) given.insert(std::string(name));
  }
  for (const auto& name : given) {
    if (accepted.count(name) == 0 && kAlwaysAccepted.count(name) == 0) {
      return hal::invalidArgument() << "--" << name << " is not a flag of this command";
    }
  }
  return {};
}

}  // namespace nnremote::flags
