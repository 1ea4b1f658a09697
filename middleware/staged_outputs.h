// Outputs written to scratch memory first and copied to the caller's memory only when the
// execution is allowed to complete: an execution that misses its deadline leaves the caller's
// outputs untouched, as the HAL requires.
#ifndef NNREMOTE_MIDDLEWARE_STAGED_OUTPUTS_H_
#define NNREMOTE_MIDDLEWARE_STAGED_OUTPUTS_H_

#include <vector>

#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::middleware {

class StagedOutputs {
 public:
  // `outputTypes` are the types of the model's outputs, in order. Outputs in device buffers
  // are not staged (a buffer is the device's own memory).
  static hal::Result<StagedOutputs> stage(const hal::Request& request,
                                          const std::vector<hal::OperandType>& outputTypes);

  // The request to run: staged outputs point at scratch pools appended after the caller's.
  const hal::Request& request() const { return staged_; }
  // Copies what the execution wrote (the bytes of each output's actual shape) to the caller's
  // memory.
  void publish(const std::vector<hal::OutputShape>& shapes) const;

 private:
  struct Copy {
    size_t output;
    hal::SharedMemory scratch;
    hal::SharedMemory target;
    uint32_t offset;
    uint32_t length;
  };
  hal::Request staged_;
  std::vector<Copy> copies_;
  std::vector<hal::OperandType> outputTypes_;
};

}  // namespace nnremote::middleware

#endif  // NNREMOTE_MIDDLEWARE_STAGED_OUTPUTS_H_
