// ANeuralNetworksCompilation: a finished model, the devices it may run on, and what the program
// asked for (preference, priority, timeout, caching). finish() prepares it as Android's runtime
// does (docs/runtime.md): the whole model on the best remote device that supports all of it, by
// the preference and the devices' capabilities; otherwise partitioned, each operation on the best
// remote device that supports it and nnapi-reference taking what none does; a model no remote
// device supports any of runs on nnapi-reference whole.
#ifndef NNREMOTE_RUNTIME_COMPILATION_H_
#define NNREMOTE_RUNTIME_COMPILATION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hal/i_device.h"
#include "runtime/cpu_fallback.h"
#include "runtime/devices.h"

namespace nnremote::runtime {

class Compilation {
 public:
  // `devices` are the candidates, in the program's order; `explicitDevices` when the program
  // named them (createForDevices), which forbids falling back to others.
  Compilation(hal::Model model, std::vector<const RuntimeDevice*> devices, bool explicitDevices);

  // Each returns an ANEURALNETWORKS_* result code, with the NDK's rules: BAD_STATE once finished.
  int setPreference(int32_t preference);
  int setPriority(int priority);
  int setTimeout(uint64_t nanoseconds);
  int setCaching(const char* cacheDir, const uint8_t* token);
  int finish();

  bool finished() const { return finished_; }
  // Finished and prepared: executions may be made from it.
  bool usable() const { return prepared_ != nullptr; }
  // Made by createForDevices for exactly one device: what timing and timeouts require.
  bool forOneDevice() const { return explicitDevices_ && devices_.size() == 1; }
  // After a successful finish:
  const hal::Model& model() const { return model_; }
  const hal::SharedPreparedModel& prepared() const { return prepared_; }
  // The devices that run it: one, or one per partition step.
  const std::vector<std::string>& deviceNames() const { return deviceNames_; }
  bool explicitDevices() const { return explicitDevices_; }

  // Whether an execution that failed on its devices may run again on nnapi-reference: made by
  // Compilation_create, not run whole on nnapi-reference already, and free of OEM and extension
  // operations, which the CPU cannot run (Android's rules); and NNREMOTE_NO_CPU_FALLBACK unset
  // when it was created (as Android's debug.nn.partition=2), for a driver's developer who wants
  // the device's errors. The same rule lets a failed partition step run alone on the CPU.
  bool fallsBackToCpu() const;
  // The fallback's report (cpu_fallback.h), naming `function` and the compilation's devices.
  void reportCpuFallback(const char* function, const hal::Error& error) const;
  // The whole model prepared on nnapi-reference, at the first call (from executions that failed).
  hal::Result<hal::SharedPreparedModel> cpuPrepared() const;
  // What fell back, for diagnostics and tests: the preparation (it then runs whole on
  // nnapi-reference), how many executions ran again whole, and how many partition steps alone.
  bool preparedOnCpuInstead() const { return preparedOnCpuInstead_; }
  uint64_t executionsOnCpuInstead() const { return cpuFallback_->executions(); }
  uint64_t stepsOnCpuInstead() const { return cpuFallback_->steps(); }
  void countExecutionOnCpuInstead() const { cpuFallback_->countExecution(); }

  // Where the model's input or output `index` is an input or output of a prepared model: of the
  // whole model, or of each partition step that reads it (or the one that writes it).
  struct StepRole {
    hal::SharedPreparedModel prepared;
    const RuntimeDevice* device;
    bool isInput;
    uint32_t ioIndex;
  };
  std::vector<StepRole> stepRoles(bool isInput, uint32_t index) const;

 private:
  // Which operations of main each candidate supports (with its feature level), in `devices_` order.
  struct Support {
    const RuntimeDevice* device;
    std::vector<bool> operations;
    bool all;
    hal::Error query;  // why the device could not say what it supports; empty message if it could
  };
  hal::Result<std::vector<Support>> support() const;
  // The device that runs the whole model, or null when no remote device supports all of it.
  const RuntimeDevice* chooseDevice(const std::vector<Support>& support) const;
  // The device of each operation of main, or an error naming one no device supports.
  hal::Result<std::vector<const RuntimeDevice*>> assignOperations(const std::vector<Support>& support) const;
  hal::Result<hal::SharedPreparedModel> preparePartitioned(const std::vector<const RuntimeDevice*>& deviceOf);
  // The whole model, or its partition steps, prepared on the devices chosen for them.
  hal::Result<hal::SharedPreparedModel> prepareOnChosen(const std::vector<Support>& support);
  // `model` prepared on `device`; `part` tells caches of different partition steps apart.
  hal::Result<hal::SharedPreparedModel> prepareOn(const RuntimeDevice& device, const hal::Model& model,
                                                  const std::string& part = "") const;

  const hal::Model model_;
  const std::vector<const RuntimeDevice*> devices_;
  const bool explicitDevices_;
  // Its CPU is null when the compilation may not fall back (fallsBackToCpu).
  const std::shared_ptr<const CpuFallback> cpuFallback_;
  hal::ExecutionPreference preference_ = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  hal::Priority priority_ = hal::Priority::MEDIUM;
  std::optional<uint64_t> timeoutNanoseconds_;
  std::string cacheDir_;
  hal::CacheToken token_{};
  bool finished_ = false;
  std::vector<std::string> deviceNames_;
  const RuntimeDevice* wholeDevice_ = nullptr;  // when not partitioned
  hal::SharedPreparedModel prepared_;
  bool preparedOnCpuInstead_ = false;
};

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_COMPILATION_H_
