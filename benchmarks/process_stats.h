// What /proc tells of another process, for benchmarks that run servers as child processes.
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

}  // namespace nnremote::benchmarks

#endif  // NNREMOTE_BENCHMARKS_PROCESS_STATS_H_
