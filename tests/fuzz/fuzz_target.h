// What every nnremote fuzz target shares: the libFuzzer entry point, and a simulated device
// small enough that a valid but huge model is refused (RESOURCE_EXHAUSTED) instead of
// allocated, so a run stays within the fuzzer's memory limit.
#ifndef NNREMOTE_TESTS_FUZZ_FUZZ_TARGET_H_
#define NNREMOTE_TESTS_FUZZ_FUZZ_TARGET_H_

#include <cstddef>
#include <cstdint>

#include <vector>

#include "hal/i_device.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace nnremote::fuzz {

// edge16 with 64 MiB of device memory.
const hal::SharedDevice& smallDevice();

// Executes `model` prepared on smallDevice() with `request`; errors are fine, crashes are not.
// A WHILE loop gets a 10 ms loop timeout.
void prepareAndExecute(const hal::Model& model, const hal::Request* request);

// smallDevice()'s configuration with a fixed compilation-cache key, so cache_fuzzer can seal
// what it is given and reach the artifact parser behind the seal.
const hal::SharedDevice& cachingDevice();
hal::CacheToken cacheToken();

// Seals `modelCacheContent` as cachingDevice() would, prepares from it and `dataCacheFile`
// (both as memory files), and executes what loads on zero-filled inputs.
void prepareFromCacheAndExecute(const std::vector<uint8_t>& modelCacheContent,
                                const std::vector<uint8_t>& dataCacheFile);

// A memory file holding `bytes`, as a cache handle.
hal::CacheFile memoryCacheFile(const std::vector<uint8_t>& bytes);

}  // namespace nnremote::fuzz

#endif  // NNREMOTE_TESTS_FUZZ_FUZZ_TARGET_H_
