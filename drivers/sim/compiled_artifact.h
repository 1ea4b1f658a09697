// What the simulated NPU writes to a compilation cache and loads back (docs/caching.md).
//
// Model cache (one file): the prepared model's graph without its constant data (operands,
// operations, subgraphs), the SHA-256 and length of the constant data, and an HMAC-SHA256 over
// all of it bound to the cache token, the device's name and version string and the server's
// secret. Nothing in it is parsed before the HMAC checks out.
//
// Data cache (one file): a 64-byte header (magic, format version, the data's SHA-256 and length)
// followed by every constant, each at a 64-byte aligned offset. The sealed digest in the model
// cache is what makes the data trusted; the header's copy only lets a device that still holds
// those bytes (ConstantStore) skip reading them.
#ifndef NNREMOTE_DRIVERS_SIM_COMPILED_ARTIFACT_H_
#define NNREMOTE_DRIVERS_SIM_COMPILED_ARTIFACT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hal/compilation_cache.h"
#include "hal/memory.h"
#include "hal/types.h"

namespace nnremote::sim {

constexpr size_t kDataCacheHeaderBytes = 64;

// What an artifact is bound to.
struct ArtifactBinding {
  const hal::CacheSecret& secret;
  const hal::CacheToken& token;
  const std::string& deviceName;
  const std::string& deviceVersion;
};

struct DataCacheHeader {
  hal::Digest digest{};
  uint64_t length = 0;  // bytes after the header
};

struct Artifact {
  std::vector<uint8_t> modelCache;
  std::vector<uint8_t> dataCacheHeader;  // kDataCacheHeaderBytes
  hal::SharedMemory data;                // the rest of the data cache
  hal::Digest dataDigest{};
};

// The artifact of `model`, which has passed validation and owns its constants.
hal::Result<Artifact> buildArtifact(const hal::Model& model, const ArtifactBinding& binding);

// A model cache's contents once its seal checks out: the graph, whose constants are
// CONSTANT_REFERENCE operands into pool 0 (not attached yet), and the data it needs.
struct SealedGraph {
  hal::Model graph;
  DataCacheHeader data;
};

// The HMAC a model cache's `content` (all of the file but its last 32 bytes) ends with.
hal::Digest sealModelCache(const ArtifactBinding& binding, const uint8_t* content, size_t size);
constexpr size_t kModelCacheSealBytes = 32;

// GENERAL_FAILURE for anything this device did not write for this token.
hal::Result<SealedGraph> openModelCache(const std::vector<uint8_t>& bytes, const ArtifactBinding& binding);

hal::Result<DataCacheHeader> parseDataCacheHeader(const std::vector<uint8_t>& head);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_COMPILED_ARTIFACT_H_
