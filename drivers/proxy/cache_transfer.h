// The client's side of remote compilation caching (docs/caching.md): cache handles stay in this
// process and only bytes travel; the server never opens a client path. For PrepareModel the
// proxy sends each handle's shape and writes back what the device saved. For
// PrepareModelFromCache it sends each model cache file whole, read once, and at first only the
// head of a large data cache file: the device keeps the data of caches it saved or loaded, and
// when it does not hold them any more the proxy sends the whole file. Whatever arrives is checked
// on the server against the digest sealed in the model cache, so a file changed in between is
// refused, never loaded.
#ifndef NNREMOTE_DRIVERS_PROXY_CACHE_TRANSFER_H_
#define NNREMOTE_DRIVERS_PROXY_CACHE_TRANSFER_H_

#include <vector>

#include "hal/result.h"
#include "hal/types.h"
#include "wire/nnremote.pb.h"

namespace nnremote::proxy {

using WireCacheFiles = google::protobuf::RepeatedPtrField<wire::CacheFile>;

enum class CacheContents {
  NONE,           // PrepareModel: the device writes, nothing is read
  WHOLE,          // every readable file, whole
  HEAD_OF_LARGE,  // files above 64 KiB as their first 4 KiB and their size (withheld_size)
};

// Each handle's descriptor count and access mode, and its contents as asked when it is readable
// (an unreadable one is sent empty: the device refuses it as it would in process). Sets
// `*withheld` when anything was held back.
hal::Status describeCacheFiles(const std::vector<hal::CacheFile>& files, CacheContents contents,
                               WireCacheFiles* wire, bool* withheld = nullptr);

// Writes what the device saved (`contents`, one per handle) into the client's files.
hal::Status writeBackCacheFiles(const std::vector<hal::CacheFile>& files,
                                const google::protobuf::RepeatedPtrField<std::string>& contents);

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_CACHE_TRANSFER_H_
