// One field of a /proc status file (/proc/PID/status, /proc/PID/task/TID/status), for tests and
// benchmarks that look at a process or thread from outside: its threads, memory, state, CPUs.
#ifndef NNREMOTE_TESTING_PROC_STATUS_H_
#define NNREMOTE_TESTING_PROC_STATUS_H_

#include <fstream>
#include <string>

namespace nnremote::testing {

// The text after "Field:" and its tab in `statusPath`; "" if the file or field is absent.
inline std::string procStatusText(const std::string& statusPath, const std::string& field) {
  std::ifstream status(statusPath);
  std::string line;
  const std::string prefix = field + ":";
  while (std::getline(status, line)) {
    if (line.rfind(prefix, 0) == 0) return line.substr(line.find_first_not_of(" \t", prefix.size()));
  }
  return "";
}

// The field's leading number (kB for memory fields); -1 if absent.
inline long procStatusNumber(const std::string& statusPath, const std::string& field) {
  const std::string text = procStatusText(statusPath, field);
  return text.empty() ? -1 : std::stol(text);
}

inline std::string procStatusPath(long pid) { return "/proc/" + std::to_string(pid) + "/status"; }

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTING_PROC_STATUS_H_
