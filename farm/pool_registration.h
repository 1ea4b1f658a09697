// An emulator's entry in a farm: its devices registered in an etcd pool on a lease it keeps
// alive, with their load refreshed as it changes (npu_emulator --etcd, docs/farm.md).
//
// If etcd cannot be reached (at start or later), registration retries with backoff while the
// emulator goes on serving; the devices appear once etcd answers. If the emulator dies, its
// lease expires after `ttl` and its keys go with it; a clean stop revokes the lease, so they go
// at once.
#ifndef NNREMOTE_FARM_POOL_REGISTRATION_H_
#define NNREMOTE_FARM_POOL_REGISTRATION_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "farm/etcd_client.h"
#include "farm/pool_record.pb.h"
#include "hal/result.h"

namespace nnremote::farm {

struct RegistrationOptions {
  std::string endpoints;  // HOST:PORT[,HOST:PORT...]
  std::string pool = "default";
  std::chrono::seconds ttl{5};
  // How often load is looked at (and written when it changed).
  std::chrono::milliseconds refresh{1000};
};

class PoolRegistration {
 public:
  // The records to publish, load included; called every refresh period.
  using RecordSource = std::function<std::vector<DeviceRecord>()>;

  // Checks the options and starts registering in the background; `log` gets a line when the
  // devices are registered, when etcd is lost, and when it is back.
  static hal::Result<std::unique_ptr<PoolRegistration>> start(RegistrationOptions options, RecordSource records,
                                                              std::ostream& log);
  // Deletes the keys (revokes the lease) and stops.
  ~PoolRegistration();

  // Whether the devices are in etcd now (as far as the last renewal knows).
  bool registered() const;

 private:
  PoolRegistration() = default;
  void run();
  // Grants a lease and writes every record on it.
  hal::Status registerAll();
  // Sleeps up to `period`; false once stopping.
  bool sleepFor(std::chrono::milliseconds period);

  RegistrationOptions options_;
  RecordSource records_;
  std::ostream* log_ = nullptr;
  std::shared_ptr<EtcdClient> etcd_;
  std::vector<DeviceRecord> published_;
  int64_t lease_ = 0;  // only the registration thread touches it while running

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool registered_ = false;
  std::thread thread_;
};

}  // namespace nnremote::farm

#endif  // NNREMOTE_FARM_POOL_REGISTRATION_H_
