// Compilation caching, the parts every backend shares: cache handles checked, read and written
// whole, and artifacts sealed with an HMAC so a device only ever loads what it wrote itself.
//
// A bad cache is GENERAL_FAILURE everywhere here, as VTS's CompilationCachingTest expects: a
// cache is a hint, and the framework answers a failed prepareModelFromCache by preparing the
// model again.
#ifndef NNREMOTE_HAL_COMPILATION_CACHE_H_
#define NNREMOTE_HAL_COMPILATION_CACHE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::hal {

using Digest = std::array<uint8_t, 32>;

// The secret artifacts are sealed with. A server keeps one in its state directory, so caches
// survive restarts; anything else uses a random one per process.
struct CacheSecret {
  std::array<uint8_t, 32> bytes{};
};

CacheSecret randomCacheSecret();

// Reads DIR/compilation-cache.key, or creates the directory (0700) and the key (0600, 32 random
// bytes) when they do not exist yet. A key file of the wrong size or one others can read is an
// error: a leaked key lets anyone forge caches this server would load.
Result<CacheSecret> loadOrCreateCacheSecret(const std::string& stateDirectory);

Digest sha256(const uint8_t* data, size_t size);

// HMAC-SHA256 over `parts`, each prefixed with its length so no two lists of parts collide.
Digest hmacSha256(const CacheSecret& secret, const std::vector<std::string_view>& parts);

// Constant-time comparison, so a forger learns nothing from how long a refusal takes.
bool digestsEqual(const Digest& a, const Digest& b);

enum class CacheAccess { READ, WRITE };

// Checks that `files` (named `what`, e.g. "model_cache") has `expected` handles, each holding
// exactly one open descriptor usable for `access`.
Status checkCacheFiles(const std::vector<CacheFile>& files, uint32_t expected, std::string_view what,
                       CacheAccess access);

// The whole file behind a checked handle, from offset 0; at most `maxBytes`.
Result<std::vector<uint8_t>> readCacheFile(const CacheFile& file, std::string_view what,
                                           uint64_t maxBytes = uint64_t{1} << 32);

// The first `bytes` of the file (fewer if it is shorter) and its full size.
Result<std::vector<uint8_t>> readCacheFileHead(const CacheFile& file, std::string_view what, size_t bytes,
                                               uint64_t* fileSize);

// Replaces the file's contents with `size` bytes from `data`, from offset 0.
Status writeCacheFile(const CacheFile& file, std::string_view what, const uint8_t* data, size_t size);

// Opens `path` as a cache handle (O_RDWR | O_CREAT, 0600 unless `flags` says otherwise).
Result<CacheFile> openCacheFile(const std::string& path, int flags);

// `count` cache handles DIRECTORY/STEM-0, STEM-1, ..., created if absent: the files a client
// keeps a device's compilation cache in (ANeuralNetworksCompilation_setCaching, conform --cache-dir).
// `created`, when given, says whether any of them had to be created: then there is no cache to
// prepare from, and Android's runtime does not ask the device to.
Result<std::vector<CacheFile>> openCacheFiles(const std::string& directory, const std::string& stem, uint32_t count,
                                              bool* created = nullptr);

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_COMPILATION_CACHE_H_
