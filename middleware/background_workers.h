// Host threads at the lowest OS scheduling priority (SCHED_IDLE) for simulating LOW-priority work:
// on a busy host, computing a LOW execution then never takes a core from the host work of a
// higher-priority client, so host contention does not undo what the device timeline decides.
#ifndef NNREMOTE_MIDDLEWARE_BACKGROUND_WORKERS_H_
#define NNREMOTE_MIDDLEWARE_BACKGROUND_WORKERS_H_

#include <functional>

namespace nnremote::middleware {

// Runs `work` on one of the process's background workers (one per core, started on first use)
// and returns when it is done.
void runInBackground(const std::function<void()>& work);

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_BACKGROUND_WORKERS_H_
