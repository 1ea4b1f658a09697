// Reads ../shared/conformance JSON files into CtsTestCases.
#ifndef NNREMOTE_CONFORMANCE_CTS_LOADER_H_
#define NNREMOTE_CONFORMANCE_CTS_LOADER_H_

#include <string>
#include <vector>

#include "hal/result.h"
#include "conformance/cts_test_case.h"

namespace nnremote::conformance {

// Every *.json spec file below `directory` (recursively), sorted, skipping index.json; or, given
// a file, that one.
hal::Result<std::vector<std::string>> findSpecFiles(const std::string& directory);

// All models of one spec file. `displayName` names the file in CtsTestCase::file.
hal::Result<std::vector<CtsTestCase>> loadSpecFile(const std::string& path,
                                                   const std::string& displayName);

// Where the shared conformance data lives: $NNREMOTE_CONFORMANCE_DIR if set, else
// ../shared/conformance next to the workspace (see conformance/shared_data.h); empty if absent.
std::string defaultConformanceDirectory();

}  // namespace nnremote::conformance

#endif  // NNREMOTE_CONFORMANCE_CTS_LOADER_H_
