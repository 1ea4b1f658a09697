// Reading a whole (small) file: configs, certificates, tokens, model files.
#ifndef NNREMOTE_HAL_FILE_CONTENTS_H_
#define NNREMOTE_HAL_FILE_CONTENTS_H_

#include <string>

#include "hal/result.h"

namespace nnremote::hal {

// The bytes of the file at `path`, or INVALID_ARGUMENT "cannot read PATH: REASON" (callers add
// what the file was for with withContext).
Result<std::string> readFileContents(const std::string& path);

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_FILE_CONTENTS_H_
