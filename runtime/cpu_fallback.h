// Android's CPU fallback for an execution (docs/runtime.md): a computation of a compilation made
// with Compilation_create that failed on its devices runs again on nnapi-reference. A device's
// buffer (a memory from a descriptor) cannot be read there, so each is staged through shared
// memory of its operand's size, read from the device for an input and written back for an
// output, as Android's runtime does with blobs.
#ifndef NNREMOTE_RUNTIME_CPU_FALLBACK_H_
#define NNREMOTE_RUNTIME_CPU_FALLBACK_H_

#include <vector>

#include "hal/i_prepared_model.h"
#include "runtime/memory.h"

namespace nnremote::runtime {

// Runs `request` on `cpu` (a whole model prepared on nnapi-reference). `inputUses` and
// `outputUses` give, per argument, the descriptor use of its memory when it comes from
// Memory_createFromDesc (null otherwise). An output in a device's buffer needs a fully known
// shape (GENERAL_FAILURE otherwise, as on Android).
hal::Result<hal::ExecutionOutcome> executeOnCpu(const hal::IPreparedModel& cpu, hal::Request request,
                                                const std::vector<const DescribedUse*>& inputUses,
                                                const std::vector<const DescribedUse*>& outputUses,
                                                hal::Duration loopTimeout);

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_CPU_FALLBACK_H_
