// The server's side of remote compilation caching (docs/caching.md). The device is handed cache
// handles of the same shape as the client's (descriptor count, access mode) over memory files
// the server owns, filled with the bytes the proxy read; the device then answers exactly as it
// would in process. The client's files are never opened here. After a PrepareModel, what the
// device wrote goes back in the response for the proxy to write.
#ifndef NNREMOTE_EMULATOR_CACHE_MIRROR_H_
#define NNREMOTE_EMULATOR_CACHE_MIRROR_H_

#include <vector>

#include "hal/result.h"
#include "hal/types.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

class CacheMirror {
 public:
  using WireFiles = google::protobuf::RepeatedPtrField<wire::CacheFile>;

  // INVALID_ARGUMENT for a request no client could make (too many handles or descriptors, or
  // a withheld size smaller than the bytes sent).
  static hal::Result<CacheMirror> create(const WireFiles& modelCache, const WireFiles& dataCache);

  const std::vector<hal::CacheFile>& modelCache() const { return modelCache_.handles; }
  const std::vector<hal::CacheFile>& dataCache() const { return dataCache_.handles; }

  // When the device wrote to any file: every file's contents, into `response`.
  hal::Status collectWritten(wire::PrepareModelResponse* response) const;

 private:
  struct Files {
    std::vector<hal::CacheFile> handles;  // as the device sees them
    std::vector<hal::SharedFd> backing;   // read-write, one per handle (null for a handle with none)
  };
  static hal::Result<Files> mirror(const WireFiles& files, const char* field);

  Files modelCache_;
  Files dataCache_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_CACHE_MIRROR_H_
