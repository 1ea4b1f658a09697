// What /proc tells of another process, for benchmarks that run servers as child processes, and
// of the machine: how much of its CPU time the hypervisor took.
#ifndef NNREMOTE_BENCHMARKS_PROCESS_STATS_H_
#define NNREMOTE_BENCHMARKS_PROCESS_STATS_H_

#include <sys/types.h>

#include <string>

namespace nnremote::benchmarks {

// CPU seconds the process has used (user + system), from /proc/PID/stat; 0 if unreadable.
double processCpuSeconds(pid_t pid);
// A field of /proc/PID/status, e.g. "Threads" or "VmRSS" (kB); -1 if absent.
long processStatusField(pid_t pid, const std::string& field);
// Context switches (voluntary and not) of all the process's live threads, from
// /proc/PID/task/*/status.
double processContextSwitches(pid_t pid);

// The machine's CPU time so far in clock ticks, from the first line of /proc/stat: all of it, and
// the part the hypervisor gave to other guests while this one wanted to run (steal).
struct MachineCpuTicks {
  double total = 0, steal = 0;
};
MachineCpuTicks machineCpuTicks();
// The share of the CPU time between two readings that was stolen: on a virtual machine, a run
// in which the host was busy has latencies of its own, and ratios of two such runs drift.
double stealShare(const MachineCpuTicks& from, const MachineCpuTicks& to);

}  // namespace nnremote::benchmarks

#endif  // NNREMOTE_BENCHMARKS_PROCESS_STATS_H_
