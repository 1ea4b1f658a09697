// The fuzz targets without libFuzzer (any compiler): runs LLVMFuzzerTestOneInput once on each
// file named, or on every file in each folder named. Used to replay a corpus or a finding, and
// by fuzz_regression_test. Build with --config=fuzz to fuzz for real (docs/fuzzing.md).
#include <dirent.h>
#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

namespace {

int replayFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return 1;
  }
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int failures = 0, inputs = 0;
  for (int i = 1; i < argc; ++i) {
    struct stat status {};
    if (::stat(argv[i], &status) != 0) {
      std::fprintf(stderr, "no such file or folder: %s\n", argv[i]);
      ++failures;
      continue;
    }
    if (!S_ISDIR(status.st_mode)) {
      failures += replayFile(argv[i]);
      ++inputs;
      continue;
    }
    DIR* folder = ::opendir(argv[i]);
    while (dirent* entry = folder != nullptr ? ::readdir(folder) : nullptr) {
      if (entry->d_name[0] == '.') continue;
      failures += replayFile(std::string(argv[i]) + "/" + entry->d_name);
      ++inputs;
    }
    if (folder != nullptr) ::closedir(folder);
  }
  std::printf("replayed %d inputs\n", inputs);
  return failures == 0 ? 0 : 1;
}
