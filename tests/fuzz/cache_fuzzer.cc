// Fuzz target: what the simulator loads from a compilation cache. A cache it did not seal is
// refused at the HMAC, which a fuzzer would never get past, so the model cache's content is
// sealed here with cachingDevice()'s own key: this exercises the artifact parser, the data-cache
// checks, the validation of what loads and its execution, as an attacker holding the key could.
//
// Input: a 4-byte little-endian length L, L bytes of model cache without its 32-byte seal, then
// the data cache file. make_fuzz_corpus writes seeds in this form from ../shared/conformance.
#include <cstring>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 4) return 0;
  uint32_t modelBytes = 0;
  std::memcpy(&modelBytes, data, 4);
  if (modelBytes > size - 4) return 0;
  const std::vector<uint8_t> modelCache(data + 4, data + 4 + modelBytes);
  const std::vector<uint8_t> dataCache(data + 4 + modelBytes, data + size);
  nnremote::fuzz::prepareFromCacheAndExecute(modelCache, dataCache);
  return 0;
}
