// Where an execution runs: on the gRPC callback thread it arrived on, or on the WorkPool.
//
// A hand-off to the pool costs a thread wake-up, and on a virtual machine that is 50-100 us: as
// much as the whole round trip of a small model. So an execution under a key (a session's
// prepared model, reusable execution or burst) one of whose last two runs was quick runs where
// it arrived, as the synchronous server ran every call. At most one runs inline at a time, so
// gRPC's few callback threads are never all taken by executions, and two slow runs in a row
// send the next of their kind back to the pool. A key seen for the first time goes to the pool.
// Two runs, not one: a single late run (a preempted thread, a backend host's CPU busy for a
// moment) would otherwise send the next to the pool, where the hand-off makes it late too, and
// through a backend host that kept a third of a sync benchmark's executions on the pool.
#ifndef NNREMOTE_EMULATOR_QUICK_EXECUTIONS_H_
#define NNREMOTE_EMULATOR_QUICK_EXECUTIONS_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "emulator/work_pool.h"

namespace nnremote::emulator {

class QuickExecutions {
 public:
  // The session's id and the id of what executes (prepared model or reusable execution). Ids are
  // random 64-bit values, so the kinds share one space; a collision only misplaces one call.
  using Key = std::pair<uint64_t, uint64_t>;
  static constexpr std::chrono::microseconds kQuick{200};

  // `quickUpTo`: how long an execution may take for the next one under its key to run inline.
  // A pool task reports its time here after the execution, so this must outlive `pool`'s tasks:
  // declare it before the pool, which then is destroyed first and waits for them.
  explicit QuickExecutions(WorkPool& pool, std::chrono::microseconds quickUpTo = kQuick)
      : pool_(pool), quickUpTo_(quickUpTo) {}

  // Runs `execution` inline when `key` was quick in one of its last two runs and nothing else
  // runs inline, else on the pool; either way it is timed for the next calls under `key`.
  // `execution` finishes its own gRPC call.
  void run(const Key& key, std::function<void()> execution);

 private:
  struct KeyHash {
    size_t operator()(const Key& key) const { return std::hash<uint64_t>()(key.first * 0x9e3779b97f4a7c15ULL ^ key.second); }
  };
  bool claimInline(const Key& key);
  void finished(const Key& key, std::chrono::steady_clock::duration took);

  static constexpr size_t kRemembered = 4096;
  WorkPool& pool_;
  const std::chrono::microseconds quickUpTo_;
  std::mutex mutex_;
  struct Recent {
    bool last = false, previous = false;  // whether each of the last two runs was quick
  };
  std::unordered_map<Key, Recent, KeyHash> recent_;
  std::atomic<bool> inlineRunning_{false};
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_QUICK_EXECUTIONS_H_
