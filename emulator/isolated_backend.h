// npu_emulator --backend=PATH.so, isolated (the default; docs/backends.md#isolation): the
// library's devices are served by a supervised child process (backend_process.h) and reached
// through the proxy driver, as chained devices are, so every RPC family, fences, bursts and
// caches work as in process. A crash of the library ends only the child: calls in flight on its
// devices fail with DEAD_OBJECT naming how it died, later calls reach a restarted child (the
// proxy prepares models again), and every other device is untouched.
#ifndef NNREMOTE_EMULATOR_ISOLATED_BACKEND_H_
#define NNREMOTE_EMULATOR_ISOLATED_BACKEND_H_

#include <memory>
#include <vector>

#include "emulator/backend_process.h"
#include "hal/backend_abi.h"
#include "hal/result.h"

namespace nnremote::emulator {

// Marks a device served by a backend host, so the server can report on the host's health; and
// keeps the host's supervisor alive as long as the device is.
//
// Sync executions of a model executed again and again ride bursts over the shared-memory queue
// to the child (the child is on this host) rather than a gRPC call each, which makes the process
// hop cheaper. Other executors go as they come.
class IsolatedDevice final : public middleware::SupervisedDevice {
 public:
  IsolatedDevice(hal::SharedDevice inner, std::shared_ptr<BackendProcess> process);

  const BackendProcess& process() const { return *process_; }
  middleware::DeviceHealth health() const override { return process_->health(); }

  hal::Result<hal::SharedPreparedModel> prepareModel(const hal::Model& model, hal::ExecutionPreference preference,
                                                     hal::Priority priority, const hal::OptionalTimePoint& deadline,
                                                     const std::vector<hal::CacheFile>& modelCache,
                                                     const std::vector<hal::CacheFile>& dataCache,
                                                     const hal::CacheToken& token) const override;
  hal::Result<hal::SharedPreparedModel> prepareModelFromCache(const hal::OptionalTimePoint& deadline,
                                                              const std::vector<hal::CacheFile>& modelCache,
                                                              const std::vector<hal::CacheFile>& dataCache,
                                                              const hal::CacheToken& token) const override;
  hal::Result<hal::SharedBuffer> allocate(const hal::BufferDesc& desc,
                                          const std::vector<hal::SharedPreparedModel>& preparedModels,
                                          const std::vector<hal::BufferRole>& inputRoles,
                                          const std::vector<hal::BufferRole>& outputRoles) const override;

 private:
  const std::shared_ptr<BackendProcess> process_;
};

// Starts the library's backend host and returns its devices, each an IsolatedDevice with the
// engine count the library gave it, for the server to schedule as it schedules any backend's.
// (Preparation is timed by the host clock: a library's own preparation-time function cannot
// cross processes.)
hal::Result<std::vector<hal::BackendDevice>> startIsolatedBackend(BackendProcessOptions options);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_ISOLATED_BACKEND_H_
