#include "emulator/probation_cpu.h"

#include <dirent.h>
#include <sys/types.h>

#include <cstdlib>

namespace nnremote::emulator {
namespace {

// Threads start while release() goes over them only if a confined thread starts them; each pass
// releases those it sees, so a pass that changes nothing has seen every thread there is.
constexpr int kReleasePasses = 16;

// Gives each thread of this process that keeps to `confined` the set `allowed`; returns how many
// it changed. A thread the library has given a set of its own keeps it.
int releasePass(const cpu_set_t& confined, const cpu_set_t& allowed) {
  int changed = 0;
  DIR* tasks = ::opendir("/proc/self/task");
  if (tasks == nullptr) return 0;
  while (const dirent* entry = ::readdir(tasks)) {
    if (entry->d_name[0] == '.') continue;
    const pid_t thread = static_cast<pid_t>(std::atoi(entry->d_name));
    cpu_set_t current;
    CPU_ZERO(&current);
    if (::sched_getaffinity(thread, sizeof(current), &current) != 0) continue;  // it has ended
    if (!CPU_EQUAL(&current, &confined)) continue;
    if (::sched_setaffinity(thread, sizeof(allowed), &allowed) == 0) ++changed;
  }
  ::closedir(tasks);
  return changed;
}

}  // namespace

ProbationCpu ProbationCpu::confine(unsigned spread) {
  ProbationCpu confinement;
  CPU_ZERO(&confinement.allowed_);
  if (::sched_getaffinity(0, sizeof(confinement.allowed_), &confinement.allowed_) != 0) return confinement;
  const int count = CPU_COUNT(&confinement.allowed_);
  if (count < 2) return confinement;
  int pick = static_cast<int>(spread % static_cast<unsigned>(count));
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &confinement.allowed_) || pick-- > 0) continue;
    CPU_ZERO(&confinement.one_);
    CPU_SET(cpu, &confinement.one_);
    confinement.confined_ = ::sched_setaffinity(0, sizeof(confinement.one_), &confinement.one_) == 0;
    break;
  }
  return confinement;
}

void ProbationCpu::release() {
  if (!confined_) return;
  for (int pass = 0; pass < kReleasePasses; ++pass) {
    if (releasePass(one_, allowed_) == 0) break;
  }
  confined_ = false;
}

}  // namespace nnremote::emulator
