#include "benchmarks/process_stats.h"

#include <dirent.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>

#include "testing/proc_status.h"

namespace nnremote::benchmarks {

using testing::procStatusNumber;

double processCpuSeconds(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const size_t nameEnd = text.rfind(')');  // the command name may hold spaces and parentheses
  if (nameEnd == std::string::npos) return 0;
  std::istringstream fields(text.substr(nameEnd + 1));
  std::string field;
  long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stol(field);
    if (i == 15) stime = std::stol(field);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

long processStatusField(pid_t pid, const std::string& field) {
  return procStatusNumber(testing::procStatusPath(pid), field);
}

double processContextSwitches(pid_t pid) {
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  double switches = 0;
  DIR* dir = ::opendir(tasks.c_str());
  if (dir == nullptr) return 0;
  while (const dirent* task = ::readdir(dir)) {
    if (task->d_name[0] == '.') continue;
    const std::string status = tasks + "/" + task->d_name + "/status";
    for (const char* field : {"voluntary_ctxt_switches", "nonvoluntary_ctxt_switches"}) {
      const long count = procStatusNumber(status, field);
      if (count > 0) switches += static_cast<double>(count);
    }
  }
  ::closedir(dir);
  return switches;
}

MachineCpuTicks machineCpuTicks() {
  std::ifstream file("/proc/stat");
  std::string cpu;
  file >> cpu;  // "cpu": the sum over all CPUs
  MachineCpuTicks ticks;
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  for (int i = 0; i < 8; ++i) {
    double value = 0;
    if (!(file >> value)) return {};
    ticks.total += value;
    if (i == 7) ticks.steal = value;
  }
  return ticks;
}

double stealShare(const MachineCpuTicks& from, const MachineCpuTicks& to) {
  const double total = to.total - from.total;
  return total > 0 ? (to.steal - from.steal) / total : 0;
}

}  // namespace nnremote::benchmarks
