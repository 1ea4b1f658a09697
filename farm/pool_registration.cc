#include "farm/pool_registration.h"

#include <algorithm>

#include "farm/pool.h"

namespace nnremote::farm {

hal::Result<std::unique_ptr<PoolRegistration>> PoolRegistration::start(RegistrationOptions options,
                                                                       RecordSource records, std::ostream& log) {
  NN_RETURN_IF_ERROR(validatePoolName(options.pool));
  if (options.ttl.count() < 2) return hal::invalidArgument() << "the lease TTL must be at least 2 s";
  std::unique_ptr<PoolRegistration> registration(new PoolRegistration());
  NN_ASSIGN_OR_RETURN(registration->etcd_, EtcdClient::create(options.endpoints));
  for (const DeviceRecord& record : records()) {
    if (record.address().empty() || record.device().empty() || record.device().find('/') != std::string::npos) {
      return hal::invalidArgument() << "cannot register device '" << record.device() << "' at '" << record.address()
                                    << "': a device needs an address and a name without '/'";
    }
  }
  registration->options_ = std::move(options);
  registration->records_ = std::move(records);
  registration->log_ = &log;
  registration->thread_ = std::thread([raw = registration.get()] { raw->run(); });
  return registration;
}

PoolRegistration::~PoolRegistration() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool PoolRegistration::registered() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return registered_;
}

bool PoolRegistration::sleepFor(std::chrono::milliseconds period) {
  std::unique_lock<std::mutex> lock(mutex_);
  return !wake_.wait_for(lock, period, [this] { return stopping_; });
}

hal::Status PoolRegistration::registerAll() {
  NN_ASSIGN_OR_RETURN(lease_, etcd_->grantLease(options_.ttl));
  published_ = records_();
  for (const DeviceRecord& record : published_) {
    auto put = etcd_->put(deviceKey(options_.pool, record.address(), record.device()), encodeRecord(record), lease_);
    if (!put.ok()) {
      (void)etcd_->revokeLease(lease_);
      lease_ = 0;
      return put;
    }
  }
  return {};
}

void PoolRegistration::run() {
  using Clock = std::chrono::steady_clock;
  const std::string where = "pool '" + options_.pool + "' at etcd " + options_.endpoints;
  std::chrono::milliseconds backoff(100);
  bool warned = false;
  Clock::time_point lastRenewal;
  auto setRegistered = [this](bool value) {
    std::lock_guard<std::mutex> lock(mutex_);
    registered_ = value;
  };
  for (;;) {
    if (lease_ == 0) {
      if (auto registeredNow = registerAll(); !registeredNow.ok()) {
        if (!warned) {
          *log_ << "npu_emulator: cannot register in " << where << ": " << registeredNow.error().message
                << "; retrying with backoff, still serving clients" << std::endl;
          warned = true;
        }
        if (!sleepFor(backoff)) break;
        backoff = std::min<std::chrono::milliseconds>(backoff * 2, std::chrono::seconds(5));
        continue;
      }
      backoff = std::chrono::milliseconds(100);
      warned = false;
      lastRenewal = Clock::now();
      setRegistered(true);
      *log_ << "npu_emulator: registered " << published_.size() << " device(s) in " << where << " (lease "
            << std::hex << lease_ << std::dec << ", TTL " << options_.ttl.count() << " s)" << std::endl;
    }
    if (!sleepFor(options_.refresh)) break;
    if (Clock::now() - lastRenewal >= options_.ttl / 3) {
      auto alive = etcd_->keepAlive(lease_);
      if (alive.ok() && *alive) {
        lastRenewal = Clock::now();
      } else if ((alive.ok() && !*alive) || Clock::now() - lastRenewal >= options_.ttl) {
        // The lease is gone (or must be by now): the keys went with it. Register anew.
        *log_ << "npu_emulator: the registration in " << where << " expired ("
              << (alive.ok() ? std::string("lease gone") : alive.error().message) << "); registering again"
              << std::endl;
        lease_ = 0;
        setRegistered(false);
        continue;
      }
    }
    // Publish load as it changes; a failed write is retried next period.
    std::vector<DeviceRecord> current = records_();
    for (size_t i = 0; i < current.size() && i < published_.size(); ++i) {
      if (current[i].SerializeAsString() == published_[i].SerializeAsString()) continue;
      const DeviceRecord& record = current[i];
      if (etcd_->put(deviceKey(options_.pool, record.address(), record.device()), encodeRecord(record), lease_).ok()) {
        published_[i] = record;
      }
    }
  }
  if (lease_ != 0) (void)etcd_->revokeLease(lease_);  // the keys go now, not at expiry
  setRegistered(false);
}

}  // namespace nnremote::farm
