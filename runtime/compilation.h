// ANeuralNetworksCompilation: a finished model, the devices it may run on, and what the program
// asked for (preference, priority, timeout, caching). finish() prepares it: the whole model on
// the best device that supports all of it, by the preference and the devices' capabilities
// (docs/runtime.md). Partitioning a model across devices is not done yet: a model no single
// device (nnapi-reference included) supports is refused.
#ifndef NNREMOTE_RUNTIME_COMPILATION_H_
#define NNREMOTE_RUNTIME_COMPILATION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hal/i_device.h"
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
  const RuntimeDevice& device() const { return *chosen_; }

 private:
  // The device that runs the model, or an error saying why none can.
  hal::Result<const RuntimeDevice*> chooseDevice() const;
  hal::Result<hal::SharedPreparedModel> prepareOn(const RuntimeDevice& device) const;

  const hal::Model model_;
  const std::vector<const RuntimeDevice*> devices_;
  const bool explicitDevices_;
  hal::ExecutionPreference preference_ = hal::ExecutionPreference::FAST_SINGLE_ANSWER;
  hal::Priority priority_ = hal::Priority::MEDIUM;
  std::optional<uint64_t> timeoutNanoseconds_;
  std::string cacheDir_;
  hal::CacheToken token_{};
  bool finished_ = false;
  const RuntimeDevice* chosen_ = nullptr;
  hal::SharedPreparedModel prepared_;
};

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_COMPILATION_H_
