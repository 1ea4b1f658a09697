#include "farm/pool.h"

#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <algorithm>
#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace nnremote::farm {

constexpr char kTargetScheme[] = "etcd://";

std::string poolPrefix(const std::string& pool) { return "/nnremote/pools/" + pool + "/"; }

std::string thisProcessName() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return std::string(host) + ":" + std::to_string(::getpid());
}

std::string deviceKey(const std::string& pool, const std::string& address, const std::string& device) {
  return poolPrefix(pool) + "devices/" + address + "/" + device;
}

std::string holdKey(const std::string& pool, const std::string& address, const std::string& device) {
  return poolPrefix(pool) + "holds/" + address + "/" + device;
}

std::string encodeRecord(const DeviceRecord& record) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(record, &json, options);
  return json;
}

hal::Result<DeviceRecord> decodeRecord(const std::string& json) {
  DeviceRecord record;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;  // records of newer emulators
  const auto status = google::protobuf::util::JsonStringToMessage(json, &record, options);
  if (!status.ok()) return hal::invalidArgument() << "not a device record: " << status.ToString();
  return record;
}

hal::Status validatePoolName(const std::string& pool) {
  if (pool.empty()) return hal::invalidArgument() << "the pool name is empty";
  for (char c : pool) {
    if (!absl::ascii_isalnum(c) && c != '-' && c != '_' && c != '.') {
      return hal::invalidArgument() << "pool name '" << pool << "' has '" << c
                                    << "'; use letters, digits, '-', '_' and '.'";
    }
  }
  return {};
}

hal::Result<std::vector<PoolDevice>> listPool(EtcdClient& etcd, const std::string& pool) {
  NN_RETURN_IF_ERROR(validatePoolName(pool));
  NN_ASSIGN_OR_RETURN(const auto entries, etcd.getPrefix(poolPrefix(pool)));
  std::map<std::string, std::string> holders;
  const std::string holdsPrefix = poolPrefix(pool) + "holds/";
  for (const KeyValue& entry : entries) {
    if (absl::StartsWith(entry.key, holdsPrefix)) holders[entry.key] = entry.value;
  }
  std::vector<PoolDevice> devices;
  const std::string devicesPrefix = poolPrefix(pool) + "devices/";
  for (const KeyValue& entry : entries) {
    if (!absl::StartsWith(entry.key, devicesPrefix)) continue;
    auto record = decodeRecord(entry.value);
    if (!record.ok()) continue;  // not ours to judge; `farm list` shows what it can read
    PoolDevice device{*record, ""};
    if (auto held = holders.find(holdKey(pool, record->address(), record->device())); held != holders.end()) {
      device.holder = held->second;
    }
    devices.push_back(std::move(device));
  }
  return devices;
}

bool isPoolTarget(const std::string& address) { return absl::StartsWith(address, kTargetScheme); }

hal::Result<PoolTarget> parsePoolTarget(const std::string& text) {
  auto bad = [&](const std::string& why) -> hal::Error {
    return hal::invalidArgument() << "malformed pool target '" << text
                                  << "': " << why << " (expected etcd://HOST:PORT[,HOST:PORT...]/POOL"
                                     "[?device=NAME|type=TYPE][&exclusive=1])";
  };
  absl::string_view rest = text;
  if (!absl::ConsumePrefix(&rest, kTargetScheme)) return bad("it does not start with etcd://");
  const size_t slash = rest.find('/');
  if (slash == absl::string_view::npos) return bad("no /POOL after the endpoints");
  PoolTarget target;
  target.endpoints = std::string(rest.substr(0, slash));
  if (target.endpoints.empty()) return bad("no etcd endpoint");
  for (absl::string_view endpoint : absl::StrSplit(target.endpoints, ',')) {
    if (auto valid = checkEndpoint(endpoint); !valid.ok()) return bad(valid.error().message);
  }
  rest.remove_prefix(slash + 1);
  const size_t question = rest.find('?');
  target.pool = std::string(rest.substr(0, question));
  if (auto valid = validatePoolName(target.pool); !valid.ok()) return bad(valid.error().message);
  if (question == absl::string_view::npos) return target;
  for (absl::string_view parameter : absl::StrSplit(rest.substr(question + 1), '&')) {
    const std::pair<absl::string_view, absl::string_view> pair = absl::StrSplit(parameter, absl::MaxSplits('=', 1));
    const std::string value(pair.second);
    if (pair.first == "device" && !value.empty()) {
      target.device = value;
    } else if (pair.first == "type" && !value.empty()) {
      target.type = absl::AsciiStrToUpper(value);
      if (target.type != "ACCELERATOR" && target.type != "CPU" && target.type != "GPU" && target.type != "OTHER") {
        return bad("type '" + value + "' is not accelerator, cpu, gpu or other");
      }
    } else if (pair.first == "exclusive" && (value == "1" || value == "true" || value == "0" || value == "false")) {
      target.exclusive = value == "1" || value == "true";
    } else {
      return bad("unknown or empty parameter '" + std::string(parameter) + "'");
    }
  }
  if (!target.device.empty() && !target.type.empty()) return bad("give device= or type=, not both");
  return target;
}

bool matches(const PoolTarget& target, const DeviceRecord& record) {
  if (!target.device.empty() && record.device() != target.device) return false;
  if (!target.type.empty() && absl::AsciiStrToUpper(record.type()) != target.type) return false;
  return true;
}

namespace {

// The matching devices, least loaded first (ties: fewer jobs queued, then key order).
std::vector<PoolDevice> candidatesFor(const PoolTarget& target, const ClaimOptions& options,
                                      std::vector<PoolDevice> devices) {
  std::vector<PoolDevice> candidates;
  for (auto& device : devices) {
    if (!matches(target, device.record) || !device.record.unavailable().empty()) continue;
    if (std::count(options.avoidAddresses.begin(), options.avoidAddresses.end(), device.record.address()) > 0) continue;
    if (target.exclusive && !device.holder.empty()) continue;
    candidates.push_back(std::move(device));
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const PoolDevice& a, const PoolDevice& b) {
    if (a.record.load() != b.record.load()) return a.record.load() < b.record.load();
    return a.record.queue_depth() < b.record.queue_depth();
  });
  return candidates;
}

std::string describePool(const PoolTarget& target, const std::vector<PoolDevice>& devices) {
  std::vector<std::string> held;
  for (const auto& device : devices) {
    held.push_back(device.record.device() + "@" + device.record.address() +
                   (device.holder.empty() ? "" : " (held by " + device.holder + ")"));
  }
  return "pool '" + target.pool + "' at " + target.endpoints + " has " +
         (held.empty() ? std::string("no devices") : absl::StrJoin(held, ", "));
}

}  // namespace

hal::Result<std::unique_ptr<DeviceClaim>> claimDevice(const PoolTarget& target, const ClaimOptions& options) {
  std::unique_ptr<DeviceClaim> claim(new DeviceClaim());
  claim->pool_ = target.pool;
  NN_ASSIGN_OR_RETURN(claim->etcd_, EtcdClient::create(target.endpoints));
  const auto giveUp = std::chrono::steady_clock::now() + options.wait;
  for (;;) {
    hal::Result<bool> claimed = claim->tryOnce(target, options, giveUp);
    if (claimed.ok() && *claimed) return claim;
    if (claimed.ok()) continue;  // the pool changed, or a second passed: look again
    // A round that failed may have granted a lease, which would expire unrenewed meanwhile.
    if (claim->lease_ != 0) (void)claim->etcd_->revokeLease(claim->lease_);
    claim->lease_ = 0;
    // A registry that did not answer may answer the next round; the caller's wait says how long
    // to keep asking.
    if (!waitToAskAgain(claimed.error(), giveUp)) return claimed.error();
    if (options.onUnanswered) options.onUnanswered(claimed.error());
  }
}

hal::Result<bool> DeviceClaim::tryOnce(const PoolTarget& target, const ClaimOptions& options,
                                       std::chrono::steady_clock::time_point giveUp) {
  EtcdClient& etcd = *etcd_;
  NN_ASSIGN_OR_RETURN(auto devices, listPool(etcd, target.pool));
  const int64_t revision = etcd.lastRevision();
  const std::vector<PoolDevice> candidates = candidatesFor(target, options, devices);
  if (!target.exclusive && !candidates.empty()) {
    record_ = candidates.front().record;
    return true;
  }
  for (const PoolDevice& candidate : candidates) {
    if (lease_ == 0) {
      NN_ASSIGN_OR_RETURN(lease_, etcd.grantLease(options.holdTtl));
    }
    const DeviceRecord& record = candidate.record;
    NN_ASSIGN_OR_RETURN(const bool taken, etcd.putIfAbsent(holdKey(target.pool, record.address(), record.device()),
                                                           options.holder, lease_));
    if (taken) {
      record_ = record;
      keeper_ = std::thread([this, ttl = options.holdTtl] { keepHoldAlive(ttl); });
      return true;
    }
  }
  // Nothing taken: a lease granted this round would expire unrenewed while we wait.
  if (lease_ != 0) (void)etcd.revokeLease(lease_);
  lease_ = 0;
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(giveUp - std::chrono::steady_clock::now());
  if (left.count() <= 0) {
    const std::string wanted = !target.device.empty() ? "device=" + target.device
                               : !target.type.empty() ? "type=" + target.type
                                                      : std::string("any device");
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
           << "no " << (target.exclusive ? "free " : "") << "device matching " << wanted << " within "
           << options.wait.count() << " ms: " << describePool(target, devices);
  }
  // Wake on the pool's next change (a device registered or released), through a Watch.
  NN_RETURN_IF_ERROR(etcd.waitForChange(poolPrefix(target.pool), revision, left).status());
  return false;
}

bool DeviceClaim::stillListed() const {
  auto found = etcd_->getPrefix(deviceKey(pool_, record_.address(), record_.device()));
  if (!found.ok()) return true;
  for (const KeyValue& entry : *found) {
    if (entry.key == deviceKey(pool_, record_.address(), record_.device())) return true;
  }
  return false;
}

void DeviceClaim::keepHoldAlive(std::chrono::seconds ttl) {
  const auto period = std::max<std::chrono::milliseconds>(std::chrono::milliseconds(200), ttl / 3);
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_.wait_for(lock, period, [this] { return stopping_; })) {
    lock.unlock();
    (void)etcd_->keepAlive(lease_);  // a missed renewal is retried next period; the TTL allows two
    lock.lock();
  }
}

DeviceClaim::~DeviceClaim() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (keeper_.joinable()) keeper_.join();
  if (lease_ != 0) (void)etcd_->revokeLease(lease_);  // releases the hold at once
}

}  // namespace nnremote::farm
