// The client's side of remote compilation caching (docs/caching.md): cache handles stay in this
// process. For PrepareModelFromCache the proxy reads each file once, whole, and sends its bytes;
// for PrepareModel it sends only each handle's shape, and writes back what the device saved.
// The server never opens a client path, and what it checks is exactly what was read here.
#ifndef NNREMOTE_PROXY_DRIVER_CACHE_TRANSFER_H_
#define NNREMOTE_PROXY_DRIVER_CACHE_TRANSFER_H_

#include <vector>

#include "hal/result.h"
#include "hal/types.h"
#include "proto/nnremote.pb.h"

namespace nnremote::proxy {

using WireCacheFiles = google::protobuf::RepeatedPtrField<wire::CacheFile>;

// Each handle's descriptor count and access mode, and with `withContents` the whole file when it
// is readable (an unreadable one is sent empty: the device refuses it as it would in process).
hal::Status describeCacheFiles(const std::vector<hal::CacheFile>& files, bool withContents, WireCacheFiles* wire);

// Replaces the bodies of large files with their first bytes (withheld_size says how long they
// are), for a first attempt that leaves the data where the device may still hold it. True if
// anything was held back.
bool withholdLargeContents(WireCacheFiles* wire);

// Writes what the device saved (`contents`, one per handle) into the client's files.
hal::Status writeBackCacheFiles(const std::vector<hal::CacheFile>& files,
                                const google::protobuf::RepeatedPtrField<std::string>& contents);

}  // namespace nnremote::proxy

#endif  // NNREMOTE_PROXY_DRIVER_CACHE_TRANSFER_H_
