// HAL statuses as the NDK's result codes, and the log line that says why a call was refused.
#ifndef NNREMOTE_RUNTIME_RESULT_CODES_H_
#define NNREMOTE_RUNTIME_RESULT_CODES_H_

#include <string>

#include "hal/result.h"

namespace nnremote::runtime {

// The ANEURALNETWORKS_* result code of a HAL status (NO_ERROR for NONE).
int resultCode(hal::ErrorStatus status);

// `code`, after logging `function`'s refusal and `why` (NNREMOTE_VLOG=runtime).
int refuse(const char* function, int code, const std::string& why);
// The error's result code, logged as above with its message.
int refuse(const char* function, const hal::Error& error);

// The name of a result code ("ANEURALNETWORKS_BAD_DATA"), for messages and tests.
const char* resultCodeName(int code);

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_RESULT_CODES_H_
