// A farm's device pool as kept in etcd, and what clients do with it: list it, pick the
// least-loaded matching device, or hold one exclusively.
//
// Keys (docs/farm.md):
//   /nnremote/pools/POOL/devices/ADDRESS/DEVICE  a DeviceRecord as JSON, on its emulator's lease:
//                                                 it vanishes when the emulator dies
//   /nnremote/pools/POOL/holds/ADDRESS/DEVICE    who holds the device exclusively, on the
//                                                 holder's lease: released when the holder dies
#ifndef NNREMOTE_FARM_POOL_H_
#define NNREMOTE_FARM_POOL_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "farm/etcd_client.h"
#include "farm/pool_record.pb.h"
#include "hal/result.h"

namespace nnremote::farm {

std::string poolPrefix(const std::string& pool);
// "HOST:PID" of this process: who registered a device, or holds one.
std::string thisProcessName();
std::string deviceKey(const std::string& pool, const std::string& address, const std::string& device);
std::string holdKey(const std::string& pool, const std::string& address, const std::string& device);
std::string encodeRecord(const DeviceRecord& record);
hal::Result<DeviceRecord> decodeRecord(const std::string& json);
// A pool name: letters, digits, '-', '_' and '.'.
hal::Status validatePoolName(const std::string& pool);

struct PoolDevice {
  DeviceRecord record;
  std::string holder;  // empty: not held
};
// Every device in the pool, in key order, with its holder.
hal::Result<std::vector<PoolDevice>> listPool(EtcdClient& etcd, const std::string& pool);

// etcd://HOST:PORT[,HOST:PORT...]/POOL[?device=NAME|type=TYPE][&exclusive=1]
struct PoolTarget {
  std::string endpoints;
  std::string pool;
  std::string device;  // only this device name
  std::string type;    // only devices of this type (accelerator, cpu, gpu, other)
  bool exclusive = false;
};
bool isPoolTarget(const std::string& address);
hal::Result<PoolTarget> parsePoolTarget(const std::string& target);
bool matches(const PoolTarget& target, const DeviceRecord& record);

struct ClaimOptions {
  // How long to wait for a matching (and, exclusive, free) device to appear.
  std::chrono::milliseconds wait{0};
  // Emulators not to pick (e.g. one that just died, whose keys have not expired yet).
  std::vector<std::string> avoidAddresses;
  // Who holds an exclusive claim, as `farm list` shows it.
  std::string holder;
  // An exclusive hold outlives a holder that died by this much.
  std::chrono::seconds holdTtl{5};
  // Told when etcd did not answer a look at the pool (DEVICE_UNAVAILABLE) and the claim, with
  // time left, asks again.
  std::function<void(const hal::Error&)> onUnanswered;
};

// The device a client got from the pool. An exclusive claim is held until this is destroyed
// (or the process dies and its lease expires).
class DeviceClaim {
 public:
  ~DeviceClaim();
  DeviceClaim(const DeviceClaim&) = delete;
  DeviceClaim& operator=(const DeviceClaim&) = delete;

  const std::string& address() const { return record_.address(); }
  const std::string& device() const { return record_.device(); }
  const DeviceRecord& record() const { return record_; }
  bool exclusive() const { return lease_ != 0; }
  // False once the device has left the pool (its emulator stopped, or died and its lease
  // expired): the farm's verdict that it is gone. True while etcd cannot tell.
  bool stillListed() const;

 private:
  friend hal::Result<std::unique_ptr<DeviceClaim>> claimDevice(const PoolTarget&, const ClaimOptions&);
  DeviceClaim() = default;
  // One look at the pool: true once a device is claimed; false when none was free and the pool
  // changed or the watch's second passed (look again); an error for a failed etcd call, or once
  // `giveUp` has passed with none free.
  hal::Result<bool> tryOnce(const PoolTarget& target, const ClaimOptions& options,
                            std::chrono::steady_clock::time_point giveUp);
  void keepHoldAlive(std::chrono::seconds ttl);

  DeviceRecord record_;
  std::string pool_;
  std::shared_ptr<EtcdClient> etcd_;
  int64_t lease_ = 0;
  std::thread keeper_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
};

// Picks a device of `target`'s pool: the least-loaded match, or with `exclusive` the
// least-loaded match nobody holds, taken with an etcd transaction on the holder's lease.
// Waits up to options.wait for one, asking again meanwhile when etcd does not answer (a member
// killed, a leader being elected: DEVICE_UNAVAILABLE); then fails naming the pool and what it
// holds, or with etcd's last error.
hal::Result<std::unique_ptr<DeviceClaim>> claimDevice(const PoolTarget& target, const ClaimOptions& options);

}  // namespace nnremote::farm

#endif  // NNREMOTE_FARM_POOL_H_
