// One conformance case through the NNAPI C API, as a program would run it: the model built with
// ANeuralNetworksModel_* calls, compiled, executed with one of the four executors, and its
// outputs compared with the CTS's tolerances.
#ifndef NNREMOTE_TESTS_RUNTIME_C_API_CASE_H_
#define NNREMOTE_TESTS_RUNTIME_C_API_CASE_H_

#include <android/NeuralNetworks.h>

#include <functional>
#include <ostream>
#include <string>

#include "conformance/cts_loader.h"

namespace nnremote::testing {

enum class Executor { SYNC, ASYNC, BURST, FENCED };

struct CaseOptions {
  // Compiled for this device alone (createForDevices); null: for every device (Compilation_create),
  // which lets the library choose and partition.
  const ANeuralNetworksDevice* device = nullptr;
  Executor executor = Executor::SYNC;
  // Tensor inputs and fully specified tensor outputs in the device's own memory (a memory from a
  // descriptor; inputs filled and outputs read with Memory_copy through a memfd).
  bool deviceMemory = false;
  // Called with the finished compilation.
  std::function<void(ANeuralNetworksCompilation*)> onFinished;
};

// Empty when the case passes (an expect_failure case passes when some call refuses it); why it
// failed otherwise.
std::string runCase(const conformance::CtsTestCase& testCase, const CaseOptions& options);

// Every `stride`-th case of the conformance set in `directory`, through `run`, which says why it
// failed (empty when it passed); the first 20 failures go to `log`. How many ran and failed.
struct CaseCounts {
  size_t ran = 0;
  size_t failed = 0;
};
hal::Result<CaseCounts> runEveryNthCase(const std::string& directory, size_t stride,
                                        const std::function<std::string(const conformance::CtsTestCase&)>& run,
                                        std::ostream& log);

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_RUNTIME_C_API_CASE_H_
