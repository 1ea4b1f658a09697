// How the proxy driver sends memory pools to the server, per pool:
//  - POSIX shared memory (hal::createSharedMemory) is registered once with the server and then
//    named by id: zero copy both ways, as long as the server runs on this host (and has room
//    for one more mapping; a pool it refuses travels as below);
//  - other pools larger than the bulk threshold travel as a chunked UploadBulk stream, separate
//    from the control message, with no 4 MiB or 2 GiB message limit;
//  - small pools travel inline.
// Outputs come back inline, as a DownloadBulk stream when large, or not at all for shared memory
// (the server wrote them in place).
#ifndef NNREMOTE_DRIVERS_PROXY_POOL_TRANSPORT_H_
#define NNREMOTE_DRIVERS_PROXY_POOL_TRANSPORT_H_

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "hal/memory.h"
#include "drivers/proxy/session_channel.h"
#include "hal/result.h"
#include "wire/nnremote.pb.h"

namespace nnremote::proxy {

class PoolTransport {
 public:
  PoolTransport(SessionChannel& channel, bool useSharedMemory, uint64_t bulkThresholdBytes);
  ~PoolTransport();

  // The wire form of one pool; `withContents` is false for pools only outputs use.
  hal::Result<wire::Memory> encode(const hal::SharedMemory& memory, bool withContents);

  // Fetches a pending download into `destination`, which has room for `capacity` bytes.
  hal::Status download(uint64_t bulkTransferId, uint8_t* destination, uint64_t capacity);

  // How many shared memories are registered with the server's current session.
  size_t registeredCount() const;

  // Unregisters, now, the memories the client has destroyed (otherwise done by the next encode).
  void releaseExpired();

 private:
  struct Registration {
    std::weak_ptr<const hal::Memory> memory;
    uint64_t id = 0;
    uint64_t generation = 0;  // the session it was made in; a later session registers again
  };

  // Registers `memory` with the server, by descriptor where the connection passes them
  // (passesDescriptor), else by shared-memory name.
  hal::Result<uint64_t> registerShared(const hal::SharedMemory& memory);
  bool passesDescriptor(const hal::Memory& memory) const;
  hal::Result<uint64_t> upload(const hal::Memory& memory);
  // Unregisters memories the client has since destroyed.
  void releaseExpiredLocked();

  SessionChannel& connection_;
  std::atomic<bool> useSharedMemory_;  // cleared when the server cannot map this host's memory
  const uint64_t bulkThresholdBytes_;
  mutable std::mutex mutex_;
  std::unordered_map<const hal::Memory*, Registration> registrations_;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_POOL_TRANSPORT_H_
