// What the NDK's opaque handles point to, and the casts between them. The program holds raw
// pointers; compilations and executions are shared so that work already started keeps them
// alive after the program frees them (the NDK allows freeing an execution that is running).
#ifndef NNREMOTE_RUNTIME_HANDLES_H_
#define NNREMOTE_RUNTIME_HANDLES_H_

#include <android/NeuralNetworks.h>

#include <atomic>
#include <memory>

#include "hal/i_burst.h"
#include "hal/sync_fence.h"
#include "runtime/compilation.h"
#include "runtime/devices.h"
#include "runtime/execution.h"
#include "runtime/memory.h"
#include "runtime/memory_desc.h"
#include "runtime/sync_fence_fd.h"

namespace nnremote::runtime {

struct CompilationHandle {
  std::shared_ptr<Compilation> compilation;
};

struct ExecutionHandle {
  std::shared_ptr<Execution> execution;
};

// An execution's completion (startCompute, startComputeWithDependencies).
struct Event {
  hal::SyncFence fence;
  std::shared_ptr<Execution> execution;  // whose result Event_wait returns; null for an imported fence
  // Why getSyncFenceFd has no sync fence to hand out; null when it has one
  // (startComputeWithDependencies, createFromSyncFenceFd). As on Android, startCompute's event
  // has none, nor has a startComputeWithDependencies that ran at once on the CPU.
  const char* noSyncFence = nullptr;
  std::unique_ptr<ImportedFence> imported;  // watches the program's fd
};

struct Burst {
  std::shared_ptr<const Compilation> compilation;
  hal::SharedBurst burst;
  // One computation at a time: the NDK answers BAD_STATE to a second while one runs.
  std::atomic<bool> busy{false};
};

inline RuntimeDevice* fromHandle(ANeuralNetworksDevice* device) { return reinterpret_cast<RuntimeDevice*>(device); }
inline const RuntimeDevice* fromHandle(const ANeuralNetworksDevice* device) {
  return reinterpret_cast<const RuntimeDevice*>(device);
}
inline ANeuralNetworksDevice* toHandle(RuntimeDevice* device) { return reinterpret_cast<ANeuralNetworksDevice*>(device); }
inline CompilationHandle* fromHandle(ANeuralNetworksCompilation* c) { return reinterpret_cast<CompilationHandle*>(c); }
inline const CompilationHandle* fromHandle(const ANeuralNetworksCompilation* c) {
  return reinterpret_cast<const CompilationHandle*>(c);
}
inline ANeuralNetworksCompilation* toHandle(CompilationHandle* c) {
  return reinterpret_cast<ANeuralNetworksCompilation*>(c);
}
inline ExecutionHandle* fromHandle(ANeuralNetworksExecution* e) { return reinterpret_cast<ExecutionHandle*>(e); }
inline const ExecutionHandle* fromHandle(const ANeuralNetworksExecution* e) {
  return reinterpret_cast<const ExecutionHandle*>(e);
}
inline ANeuralNetworksExecution* toHandle(ExecutionHandle* e) { return reinterpret_cast<ANeuralNetworksExecution*>(e); }
inline Memory* fromHandle(ANeuralNetworksMemory* m) { return reinterpret_cast<Memory*>(m); }
inline const Memory* fromHandle(const ANeuralNetworksMemory* m) { return reinterpret_cast<const Memory*>(m); }
inline ANeuralNetworksMemory* toHandle(Memory* m) { return reinterpret_cast<ANeuralNetworksMemory*>(m); }
inline MemoryDesc* fromHandle(ANeuralNetworksMemoryDesc* d) { return reinterpret_cast<MemoryDesc*>(d); }
inline const MemoryDesc* fromHandle(const ANeuralNetworksMemoryDesc* d) {
  return reinterpret_cast<const MemoryDesc*>(d);
}
inline ANeuralNetworksMemoryDesc* toHandle(MemoryDesc* d) { return reinterpret_cast<ANeuralNetworksMemoryDesc*>(d); }
inline Event* fromHandle(ANeuralNetworksEvent* e) { return reinterpret_cast<Event*>(e); }
inline const Event* fromHandle(const ANeuralNetworksEvent* e) { return reinterpret_cast<const Event*>(e); }
inline ANeuralNetworksEvent* toHandle(Event* e) { return reinterpret_cast<ANeuralNetworksEvent*>(e); }
inline Burst* fromHandle(ANeuralNetworksBurst* b) { return reinterpret_cast<Burst*>(b); }
inline ANeuralNetworksBurst* toHandle(Burst* b) { return reinterpret_cast<ANeuralNetworksBurst*>(b); }

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_HANDLES_H_
