// Where ../shared (conformance models, reference figures) is, seen from tests and tools.
#ifndef NNREMOTE_CONFORMANCE_SHARED_DATA_H_
#define NNREMOTE_CONFORMANCE_SHARED_DATA_H_

#include <string>

namespace nnremote::conformance {

// The directory `sub` of the shared data ("conformance", "reference/scalesim"): below
// $NNREMOTE_SHARED_DIR if set, else ../shared next to the workspace (found through the
// README.md runfile under `bazel test`, through BUILD_WORKSPACE_DIRECTORY under `bazel run`, or
// from the current directory). Empty if it does not exist.
std::string sharedDataDirectory(const std::string& sub);

}  // namespace nnremote::conformance

#endif  // NNREMOTE_CONFORMANCE_SHARED_DATA_H_
