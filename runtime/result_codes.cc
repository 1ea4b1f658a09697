#include "runtime/result_codes.h"

#include <android/NeuralNetworks.h>

#include "hal/vlog.h"

namespace nnremote::runtime {

int resultCode(hal::ErrorStatus status) {
  switch (status) {
    case hal::ErrorStatus::NONE:
      return ANEURALNETWORKS_NO_ERROR;
    case hal::ErrorStatus::DEVICE_UNAVAILABLE:
      return ANEURALNETWORKS_UNAVAILABLE_DEVICE;
    case hal::ErrorStatus::OUTPUT_INSUFFICIENT_SIZE:
      return ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE;
    case hal::ErrorStatus::INVALID_ARGUMENT:
      return ANEURALNETWORKS_BAD_DATA;
    case hal::ErrorStatus::MISSED_DEADLINE_TRANSIENT:
      return ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT;
    case hal::ErrorStatus::MISSED_DEADLINE_PERSISTENT:
      return ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT;
    case hal::ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT:
      return ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT;
    case hal::ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT:
      return ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT;
    case hal::ErrorStatus::DEAD_OBJECT:
      return ANEURALNETWORKS_DEAD_OBJECT;
    case hal::ErrorStatus::GENERAL_FAILURE:
      break;
  }
  return ANEURALNETWORKS_OP_FAILED;
}

int refuse(const char* function, int code, const std::string& why) {
  NN_VLOG(RUNTIME) << function << ": " << resultCodeName(code) << ": " << why;
  return code;
}

int refuse(const char* function, const hal::Error& error) {
  return refuse(function, resultCode(error.code), std::string(hal::toString(error.code)) + ": " + error.message);
}

const char* resultCodeName(int code) {
  switch (code) {
    case ANEURALNETWORKS_NO_ERROR: return "ANEURALNETWORKS_NO_ERROR";
    case ANEURALNETWORKS_OUT_OF_MEMORY: return "ANEURALNETWORKS_OUT_OF_MEMORY";
    case ANEURALNETWORKS_INCOMPLETE: return "ANEURALNETWORKS_INCOMPLETE";
    case ANEURALNETWORKS_UNEXPECTED_NULL: return "ANEURALNETWORKS_UNEXPECTED_NULL";
    case ANEURALNETWORKS_BAD_DATA: return "ANEURALNETWORKS_BAD_DATA";
    case ANEURALNETWORKS_OP_FAILED: return "ANEURALNETWORKS_OP_FAILED";
    case ANEURALNETWORKS_BAD_STATE: return "ANEURALNETWORKS_BAD_STATE";
    case ANEURALNETWORKS_UNMAPPABLE: return "ANEURALNETWORKS_UNMAPPABLE";
    case ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE: return "ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE";
    case ANEURALNETWORKS_UNAVAILABLE_DEVICE: return "ANEURALNETWORKS_UNAVAILABLE_DEVICE";
    case ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT: return "ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT";
    case ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT: return "ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT";
    case ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT: return "ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT";
    case ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT: return "ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT";
    case ANEURALNETWORKS_DEAD_OBJECT: return "ANEURALNETWORKS_DEAD_OBJECT";
    default: return "an unknown result code";
  }
}

}  // namespace nnremote::runtime
