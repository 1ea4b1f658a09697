// A small etcd v3 client over its gRPC API (farm/etcd_v3.proto): keys, leases and watches.
//
// A farm names its etcd cluster by every member's endpoint. The client talks to one member at a
// time and moves to the next when a call finds that member unreachable, so losing a member of
// a healthy cluster (one of three) is invisible to callers. Each call has a deadline; nothing
// here blocks forever.
#ifndef NNREMOTE_FARM_ETCD_CLIENT_H_
#define NNREMOTE_FARM_ETCD_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "farm/etcd_v3.grpc.pb.h"
#include "hal/result.h"

namespace nnremote::farm {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t lease = 0;
};

// Each call tries the members in turn until one answers or the call's time is up. One that no
// member answered in time (all down, or none leading: after losing its leader a cluster answers
// only once it has elected another) fails with DEVICE_UNAVAILABLE, which callers with time left
// may retry; any other failure is GENERAL_FAILURE.
class EtcdClient {
 public:
  // `endpoints`: "HOST:PORT[,HOST:PORT...]". Makes no call: a cluster that is down now is
  // found when it comes up.
  static hal::Result<std::shared_ptr<EtcdClient>> create(const std::string& endpoints,
                                                         std::chrono::milliseconds callTimeout = std::chrono::seconds(5));

  const std::string& endpoints() const { return endpointList_; }

  // A lease that expires `ttl` after its last renewal; its keys go with it.
  hal::Result<int64_t> grantLease(std::chrono::seconds ttl);
  // Renews a lease once: false when it no longer exists (it expired or was revoked).
  hal::Result<bool> keepAlive(int64_t lease);
  // Ends a lease now, deleting its keys.
  hal::Status revokeLease(int64_t lease);

  hal::Status put(const std::string& key, const std::string& value, int64_t lease = 0);
  // Puts `key` only if it does not exist (an etcd transaction on its create revision): false when
  // it already did.
  hal::Result<bool> putIfAbsent(const std::string& key, const std::string& value, int64_t lease);
  // Deletes `key` only if its value is still `value`; false when it was not.
  hal::Result<bool> deleteIfValue(const std::string& key, const std::string& value);
  hal::Status remove(const std::string& key);
  // Every key under `prefix`, in key order.
  hal::Result<std::vector<KeyValue>> getPrefix(const std::string& prefix);
  // Waits until a key under `prefix` changes after `revision`, through a Watch stream, for at most
  // `timeout` or a second, whichever is shorter: true if something changed (callers look again
  // either way). Lets waiters sleep instead of polling.
  hal::Result<bool> waitForChange(const std::string& prefix, int64_t revision, std::chrono::milliseconds timeout);
  // The store's revision seen by the last getPrefix (for waitForChange).
  int64_t lastRevision() const { return lastRevision_.load(); }

 private:
  struct Member {
    std::string endpoint;
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<etcdserverpb::KV::Stub> kv;
    std::unique_ptr<etcdserverpb::Lease::Stub> lease;
    std::unique_ptr<etcdserverpb::Watch::Stub> watch;
  };
  EtcdClient() = default;

  // Runs `call` on the member in use, then on each other member while they are unreachable.
  // `what` names the call in errors.
  template <typename Call>
  hal::Status onSomeMember(const char* what, Call call);
  std::unique_ptr<grpc::ClientContext> context(std::chrono::milliseconds timeout) const;
  std::chrono::milliseconds memberTimeout() const;

  std::string endpointList_;
  std::chrono::milliseconds callTimeout_{5000};
  std::vector<Member> members_;
  std::atomic<size_t> current_{0};
  std::atomic<int64_t> lastRevision_{0};
};

// Whether a failed etcd call is worth making again for a caller who waits until `giveUp`: no
// member answered it (DEVICE_UNAVAILABLE: one may be down, or a leader being elected), and
// there is time left. If so, first waits a moment (at most 100 ms, never past `giveUp`): a member
// without a leader refuses at once, and asking again at once would spin until one is elected.
bool waitToAskAgain(const hal::Error& error, std::chrono::steady_clock::time_point giveUp);

// INVALID_ARGUMENT unless `endpoint` is HOST:PORT.
hal::Status checkEndpoint(absl::string_view endpoint);

// The end of the key range holding every key that starts with `prefix` (etcd's convention).
std::string prefixRangeEnd(const std::string& prefix);

}  // namespace nnremote::farm

#endif  // NNREMOTE_FARM_ETCD_CLIENT_H_
