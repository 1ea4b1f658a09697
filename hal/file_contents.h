// Reading a whole (small) file: configs, certificates, tokens, model files; and making a folder
// that files will be written into.
#ifndef NNREMOTE_HAL_FILE_CONTENTS_H_
#define NNREMOTE_HAL_FILE_CONTENTS_H_

#include <string>

#include "hal/result.h"

namespace nnremote::hal {

// The bytes of the file at `path`, or INVALID_ARGUMENT "cannot read PATH: REASON" (callers add
// what the file was for with withContext).
Result<std::string> readFileContents(const std::string& path);

// Creates the folder `path` (and its parents) if missing and checks that a file can be created in
// it, so that a program given it (--record, --dump-graphs, --cache-dir) fails at once, with the
// reason, rather than at its first write: INVALID_ARGUMENT "PATH: REASON" otherwise.
Status makeWritableDirectory(const std::string& path);

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_FILE_CONTENTS_H_
