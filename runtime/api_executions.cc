// The NDK's execution, event and burst functions.
#include <android/NeuralNetworks.h>

#include <string>

#include "runtime/handles.h"
#include "runtime/result_codes.h"

using nnremote::runtime::Burst;
using nnremote::runtime::Event;
using nnremote::runtime::Execution;
using nnremote::runtime::ExecutionHandle;
using nnremote::runtime::fromHandle;
using nnremote::runtime::refuse;
using nnremote::runtime::toHandle;

namespace {

Execution& executionOf(ANeuralNetworksExecution* execution) { return *fromHandle(execution)->execution; }

int setArgument(const char* function, ANeuralNetworksExecution* execution, bool isInput, int32_t index,
                const ANeuralNetworksOperandType* type, void* buffer, const ANeuralNetworksMemory* memory,
                bool fromMemory, size_t offset, size_t length) {
  if (execution == nullptr) return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "execution is NULL");
  if (fromMemory && memory == nullptr) return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "memory is NULL");
  // NULL with length 0 omits the argument (the NDK allows it for inputs and outputs alike).
  if (!fromMemory && buffer == nullptr && length != 0) {
    return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "buffer is NULL with a non-zero length");
  }
  return executionOf(execution).setArgument(isInput, index, type, buffer, fromMemory ? fromHandle(memory) : nullptr,
                                            offset, length);
}

int startWith(const char* function, ANeuralNetworksExecution* execution,
              const std::vector<nnremote::hal::SyncFence>& waitFor, uint64_t duration, ANeuralNetworksEvent** event) {
  if (event != nullptr) *event = nullptr;
  if (execution == nullptr || event == nullptr) return refuse(function, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  nnremote::hal::SyncFence done;
  bool ranAtOnce = false;
  const int code = executionOf(execution).start(waitFor, duration, &done, &ranAtOnce);
  if (code != ANEURALNETWORKS_NO_ERROR) return code;
  const char* noSyncFence = nullptr;
  if (waitFor.empty()) {
    noSyncFence = "the event is startCompute's, which has no sync fence (startComputeWithDependencies' has)";
  } else if (ranAtOnce) {
    noSyncFence =
        "the computation ran on the CPU before startComputeWithDependencies returned (its device "
        "refused it), so no sync fence stands for it; the event is already signaled";
  }
  *event = toHandle(new Event{done, fromHandle(execution)->execution, noSyncFence, nullptr});
  return ANEURALNETWORKS_NO_ERROR;
}

}  // namespace

extern "C" {

int ANeuralNetworksExecution_create(ANeuralNetworksCompilation* compilation, ANeuralNetworksExecution** execution) {
  if (execution != nullptr) *execution = nullptr;
  if (compilation == nullptr || execution == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  const auto& shared = fromHandle(compilation)->compilation;
  if (!shared->usable()) {
    return refuse(__func__, ANEURALNETWORKS_BAD_STATE, "the compilation is not finished, or its finish failed");
  }
  *execution = toHandle(new ExecutionHandle{std::make_shared<Execution>(shared)});
  return ANEURALNETWORKS_NO_ERROR;
}

// A running computation holds its execution; the program's handle goes now.
void ANeuralNetworksExecution_free(ANeuralNetworksExecution* execution) { delete fromHandle(execution); }

int ANeuralNetworksExecution_setInput(ANeuralNetworksExecution* execution, int32_t index,
                                      const ANeuralNetworksOperandType* type, const void* buffer, size_t length) {
  return setArgument(__func__, execution, true, index, type, const_cast<void*>(buffer), nullptr, false, 0, length);
}

int ANeuralNetworksExecution_setInputFromMemory(ANeuralNetworksExecution* execution, int32_t index,
                                                const ANeuralNetworksOperandType* type,
                                                const ANeuralNetworksMemory* memory, size_t offset, size_t length) {
  return setArgument(__func__, execution, true, index, type, nullptr, memory, true, offset, length);
}

int ANeuralNetworksExecution_setOutput(ANeuralNetworksExecution* execution, int32_t index,
                                       const ANeuralNetworksOperandType* type, void* buffer, size_t length) {
  return setArgument(__func__, execution, false, index, type, buffer, nullptr, false, 0, length);
}

int ANeuralNetworksExecution_setOutputFromMemory(ANeuralNetworksExecution* execution, int32_t index,
                                                 const ANeuralNetworksOperandType* type,
                                                 const ANeuralNetworksMemory* memory, size_t offset, size_t length) {
  return setArgument(__func__, execution, false, index, type, nullptr, memory, true, offset, length);
}

int ANeuralNetworksExecution_compute(ANeuralNetworksExecution* execution) {
  if (execution == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "execution is NULL");
  return executionOf(execution).compute();
}

int ANeuralNetworksExecution_startCompute(ANeuralNetworksExecution* execution, ANeuralNetworksEvent** event) {
  return startWith(__func__, execution, {}, 0, event);
}

int ANeuralNetworksExecution_startComputeWithDependencies(ANeuralNetworksExecution* execution,
                                                          const ANeuralNetworksEvent* const* dependencies,
                                                          uint32_t num_dependencies, uint64_t duration,
                                                          ANeuralNetworksEvent** event) {
  if (num_dependencies > 0 && dependencies == nullptr) {
    if (event != nullptr) *event = nullptr;
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "dependencies is NULL");
  }
  std::vector<nnremote::hal::SyncFence> waitFor;
  for (uint32_t i = 0; i < num_dependencies; ++i) {
    if (dependencies[i] == nullptr) {
      if (event != nullptr) *event = nullptr;
      return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "dependencies[" + std::to_string(i) + "] is NULL");
    }
    waitFor.push_back(fromHandle(dependencies[i])->fence);
  }
  // Without dependencies this is startCompute, except that a duration needs some to wait for.
  if (waitFor.empty()) waitFor.push_back(nnremote::hal::SyncFence::createAsSignaled());
  return startWith(__func__, execution, waitFor, duration, event);
}

int ANeuralNetworksExecution_setMeasureTiming(ANeuralNetworksExecution* execution, bool measure) {
  if (execution == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "execution is NULL");
  return executionOf(execution).setMeasureTiming(measure);
}

int ANeuralNetworksExecution_getDuration(const ANeuralNetworksExecution* execution, int32_t durationCode,
                                         uint64_t* duration) {
  if (execution == nullptr || duration == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  return fromHandle(execution)->execution->getDuration(durationCode, duration);
}

int ANeuralNetworksExecution_getOutputOperandRank(ANeuralNetworksExecution* execution, int32_t index,
                                                  uint32_t* rank) {
  if (execution == nullptr || rank == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  return executionOf(execution).getOutputOperandRank(index, rank);
}

int ANeuralNetworksExecution_getOutputOperandDimensions(ANeuralNetworksExecution* execution, int32_t index,
                                                        uint32_t* dimensions) {
  if (execution == nullptr || dimensions == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  return executionOf(execution).getOutputOperandDimensions(index, dimensions);
}

int ANeuralNetworksExecution_setTimeout(ANeuralNetworksExecution* execution, uint64_t duration) {
  if (execution == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "execution is NULL");
  return executionOf(execution).setTimeout(duration);
}

int ANeuralNetworksExecution_setLoopTimeout(ANeuralNetworksExecution* execution, uint64_t duration) {
  if (execution == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "execution is NULL");
  return executionOf(execution).setLoopTimeout(duration);
}

int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution* execution, bool reusable) {
  if (execution == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "execution is NULL");
  return executionOf(execution).setReusable(reusable);
}

int ANeuralNetworksExecution_enableInputAndOutputPadding(ANeuralNetworksExecution* execution, bool enable) {
  if (execution == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "execution is NULL");
  return executionOf(execution).enableInputAndOutputPadding(enable);
}

int ANeuralNetworksEvent_wait(ANeuralNetworksEvent* event) {
  if (event == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "event is NULL");
  const Event& e = *fromHandle(event);
  const bool signaled = e.fence.wait(std::nullopt) == nnremote::hal::SyncFence::State::SIGNALED;
  if (e.execution != nullptr) return e.execution->result();
  return signaled ? ANEURALNETWORKS_NO_ERROR : ANEURALNETWORKS_OP_FAILED;
}

void ANeuralNetworksEvent_free(ANeuralNetworksEvent* event) {
  if (event == nullptr) return;
  // As the NDK: freeing an event waits for its execution; an imported fence is only let go of.
  if (fromHandle(event)->imported == nullptr) fromHandle(event)->fence.wait(std::nullopt);
  delete fromHandle(event);
}

int ANeuralNetworksEvent_createFromSyncFenceFd(int sync_fence_fd, ANeuralNetworksEvent** event) {
  if (event != nullptr) *event = nullptr;
  if (event == nullptr) return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "event is NULL");
  // As the NDK: 0 is standard input, never a fence a program was handed.
  if (sync_fence_fd <= 0) {
    return refuse(__func__, ANEURALNETWORKS_BAD_DATA,
                  "sync_fence_fd " + std::to_string(sync_fence_fd) + " is not a sync fence (it must be above 0)");
  }
  auto imported = nnremote::runtime::ImportedFence::watch(sync_fence_fd);
  if (!imported.ok()) return refuse(__func__, ANEURALNETWORKS_BAD_DATA, imported.error().message);
  const nnremote::hal::SyncFence fence = (*imported)->fence();
  *event = toHandle(new Event{fence, nullptr, nullptr, std::move(imported).value()});
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksEvent_getSyncFenceFd(const ANeuralNetworksEvent* event, int* sync_fence_fd) {
  if (sync_fence_fd != nullptr) *sync_fence_fd = -1;
  if (event == nullptr || sync_fence_fd == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  if (const char* none = fromHandle(event)->noSyncFence; none != nullptr) {
    return refuse(__func__, ANEURALNETWORKS_BAD_DATA, none);
  }
  auto fd = nnremote::runtime::exportSyncFence(fromHandle(event)->fence);
  if (!fd.ok()) return refuse(__func__, ANEURALNETWORKS_OP_FAILED, fd.error().message);
  *sync_fence_fd = *fd;
  return ANEURALNETWORKS_NO_ERROR;
}

int ANeuralNetworksBurst_create(ANeuralNetworksCompilation* compilation, ANeuralNetworksBurst** burst) {
  if (burst != nullptr) *burst = nullptr;
  if (compilation == nullptr || burst == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  const auto& shared = fromHandle(compilation)->compilation;
  if (!shared->usable()) return refuse(__func__, ANEURALNETWORKS_BAD_STATE, "the compilation is not finished");
  auto opened = shared->prepared()->configureExecutionBurst();
  if (!opened.ok()) return refuse(__func__, opened.error());
  *burst = toHandle(new Burst{shared, std::move(opened).value()});
  return ANEURALNETWORKS_NO_ERROR;
}

void ANeuralNetworksBurst_free(ANeuralNetworksBurst* burst) { delete fromHandle(burst); }

int ANeuralNetworksExecution_burstCompute(ANeuralNetworksExecution* execution, ANeuralNetworksBurst* burst) {
  if (execution == nullptr || burst == nullptr) {
    return refuse(__func__, ANEURALNETWORKS_UNEXPECTED_NULL, "NULL argument");
  }
  Burst& b = *fromHandle(burst);
  if (b.compilation != fromHandle(execution)->execution->compilation()) {
    return refuse(__func__, ANEURALNETWORKS_BAD_DATA, "the burst and the execution have different compilations");
  }
  if (b.busy.exchange(true)) {
    return refuse(__func__, ANEURALNETWORKS_BAD_STATE, "the burst is running another execution");
  }
  const int code = executionOf(execution).compute(b.burst.get());
  b.busy = false;
  return code;
}

}  // extern "C"
