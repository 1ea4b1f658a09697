#include "farm/etcd_client.h"

#include <algorithm>
#include <thread>

#include "absl/strings/str_split.h"
#include "wire/address.h"

namespace nnremote::farm {
namespace {

hal::Error etcdError(hal::ErrorStatus code, const char* what, const std::string& endpoint, const grpc::Status& status) {
  return hal::makeError(code) << "etcd " << what << " at " << endpoint << ": " << status.error_message()
                              << " (gRPC code " << static_cast<int>(status.error_code()) << ")";
}

// A member that cannot answer now; another may.
bool memberUnreachable(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::UNAVAILABLE ||
         status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

}  // namespace

bool waitToAskAgain(const hal::Error& error, std::chrono::steady_clock::time_point giveUp) {
  constexpr std::chrono::milliseconds kPause{100};
  if (error.code != hal::ErrorStatus::DEVICE_UNAVAILABLE) return false;
  const auto now = std::chrono::steady_clock::now();
  if (now >= giveUp) return false;
  std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(kPause, giveUp - now));
  return std::chrono::steady_clock::now() < giveUp;
}

hal::Status checkEndpoint(absl::string_view endpoint) {
  const auto parsed = wire::parseAddress(std::string(endpoint), wire::AddressUse::kConnect);
  if (!parsed.ok()) return hal::invalidArgument() << "endpoint " << parsed.error().message;
  if (parsed->isUnix()) return hal::invalidArgument() << "endpoint '" << endpoint << "' is not HOST:PORT";
  return {};
}

std::string prefixRangeEnd(const std::string& prefix) {
  std::string end = prefix;
  while (!end.empty()) {
    if (static_cast<unsigned char>(end.back()) < 0xff) {
      end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
      return end;
    }
    end.pop_back();
  }
  return std::string(1, '\0');  // every key
}

hal::Result<std::shared_ptr<EtcdClient>> EtcdClient::create(const std::string& endpoints,
                                                            std::chrono::milliseconds callTimeout) {
  std::shared_ptr<EtcdClient> client(new EtcdClient());
  client->endpointList_ = endpoints;
  client->callTimeout_ = callTimeout;
  for (absl::string_view endpoint : absl::StrSplit(endpoints, ',', absl::SkipWhitespace())) {
    if (auto valid = checkEndpoint(endpoint); !valid.ok()) return hal::invalidArgument() << "etcd " << valid.error().message;
    grpc::ChannelArguments arguments;
    // A member that comes back is used again soon; gRPC's default backoff grows to two minutes.
    arguments.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    arguments.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    // Also each connection attempt's limit (default 20 s): a starting etcd accepts connections
    // before it serves them, and one made then would hang that long.
    arguments.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 1000);
    Member member;
    member.endpoint = std::string(endpoint);
    member.channel = grpc::CreateCustomChannel(member.endpoint, grpc::InsecureChannelCredentials(), arguments);
    member.kv = etcdserverpb::KV::NewStub(member.channel);
    member.lease = etcdserverpb::Lease::NewStub(member.channel);
    member.watch = etcdserverpb::Watch::NewStub(member.channel);
    client->members_.push_back(std::move(member));
  }
  if (client->members_.empty()) return hal::invalidArgument() << "no etcd endpoint given";
  return client;
}

std::unique_ptr<grpc::ClientContext> EtcdClient::context(std::chrono::milliseconds timeout) const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + timeout);
  // Wait (within the deadline) for the member to be connected rather than fail at once while it
  // is not: in a process without a gRPC server, only a waiting call drives the connection.
  context->set_wait_for_ready(true);
  return context;
}

template <typename Call>
hal::Status EtcdClient::onSomeMember(const char* what, Call call) {
  // Round the members until the call's time is up: one may be dead, and after losing the leader
  // the others answer only once they have elected a new one (about a second).
  const auto giveUp = std::chrono::steady_clock::now() + callTimeout_;
  const size_t first = current_.load();
  grpc::Status status;
  for (size_t attempt = 0; attempt == 0 || std::chrono::steady_clock::now() < giveUp; ++attempt) {
    const size_t index = (first + attempt) % members_.size();
    status = call(members_[index]);
    if (status.ok()) {
      current_.store(index);
      return {};
    }
    if (!memberUnreachable(status)) {
      return etcdError(hal::ErrorStatus::GENERAL_FAILURE, what, members_[index].endpoint, status);
    }
  }
  return hal::makeError(hal::ErrorStatus::DEVICE_UNAVAILABLE)
         << "etcd " << what << " at " << endpointList_ << ": no member answered within " << callTimeout_.count()
         << " ms (is etcd running and reachable there? last: " << status.error_message() << ", gRPC code "
         << static_cast<int>(status.error_code()) << ")";
}

std::chrono::milliseconds EtcdClient::memberTimeout() const {
  // A share of the call's time, at most a second: a dead member leaves time for the others.
  return std::clamp<std::chrono::milliseconds>(callTimeout_ / static_cast<int>(members_.size()),
                                               std::chrono::milliseconds(300), std::chrono::milliseconds(1000));
}

hal::Result<int64_t> EtcdClient::grantLease(std::chrono::seconds ttl) {
  etcdserverpb::LeaseGrantRequest request;
  request.set_ttl(ttl.count());
  etcdserverpb::LeaseGrantResponse response;
  NN_RETURN_IF_ERROR(onSomeMember("LeaseGrant", [&](Member& member) {
    return member.lease->LeaseGrant(context(memberTimeout()).get(), request, &response);
  }));
  if (!response.error().empty()) {
    return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "etcd LeaseGrant: " << response.error();
  }
  return response.id();
}

hal::Result<bool> EtcdClient::keepAlive(int64_t lease) {
  etcdserverpb::LeaseKeepAliveResponse response;
  NN_RETURN_IF_ERROR(onSomeMember("LeaseKeepAlive", [&](Member& member) {
    auto streamContext = context(memberTimeout());
    auto stream = member.lease->LeaseKeepAlive(streamContext.get());
    etcdserverpb::LeaseKeepAliveRequest request;
    request.set_id(lease);
    if (stream->Write(request) && stream->Read(&response)) {
      stream->WritesDone();
      streamContext->TryCancel();  // one renewal is all we came for
      (void)stream->Finish();
      return grpc::Status::OK;
    }
    return stream->Finish();
  }));
  return response.ttl() > 0;  // etcd answers TTL 0 for a lease it no longer has
}

hal::Status EtcdClient::revokeLease(int64_t lease) {
  etcdserverpb::LeaseRevokeRequest request;
  request.set_id(lease);
  etcdserverpb::LeaseRevokeResponse response;
  return onSomeMember("LeaseRevoke", [&](Member& member) {
    return member.lease->LeaseRevoke(context(memberTimeout()).get(), request, &response);
  });
}

hal::Status EtcdClient::put(const std::string& key, const std::string& value, int64_t lease) {
  etcdserverpb::PutRequest request;
  request.set_key(key);
  request.set_value(value);
  request.set_lease(lease);
  etcdserverpb::PutResponse response;
  return onSomeMember("Put", [&](Member& member) {
    return member.kv->Put(context(memberTimeout()).get(), request, &response);
  });
}

hal::Result<bool> EtcdClient::putIfAbsent(const std::string& key, const std::string& value, int64_t lease) {
  etcdserverpb::TxnRequest request;
  etcdserverpb::Compare* absent = request.add_compare();
  absent->set_key(key);
  absent->set_target(etcdserverpb::Compare::CREATE);
  absent->set_result(etcdserverpb::Compare::EQUAL);
  absent->set_create_revision(0);
  etcdserverpb::PutRequest* put = request.add_success()->mutable_request_put();
  put->set_key(key);
  put->set_value(value);
  put->set_lease(lease);
  etcdserverpb::TxnResponse response;
  NN_RETURN_IF_ERROR(onSomeMember("Txn", [&](Member& member) {
    return member.kv->Txn(context(memberTimeout()).get(), request, &response);
  }));
  return response.succeeded();
}

hal::Result<bool> EtcdClient::deleteIfValue(const std::string& key, const std::string& value) {
  etcdserverpb::TxnRequest request;
  etcdserverpb::Compare* same = request.add_compare();
  same->set_key(key);
  same->set_target(etcdserverpb::Compare::VALUE);
  same->set_result(etcdserverpb::Compare::EQUAL);
  same->set_value(value);
  request.add_success()->mutable_request_delete_range()->set_key(key);
  etcdserverpb::TxnResponse response;
  NN_RETURN_IF_ERROR(onSomeMember("Txn", [&](Member& member) {
    return member.kv->Txn(context(memberTimeout()).get(), request, &response);
  }));
  return response.succeeded();
}

hal::Status EtcdClient::remove(const std::string& key) {
  etcdserverpb::DeleteRangeRequest request;
  request.set_key(key);
  etcdserverpb::DeleteRangeResponse response;
  return onSomeMember("DeleteRange", [&](Member& member) {
    return member.kv->DeleteRange(context(memberTimeout()).get(), request, &response);
  });
}

hal::Result<std::vector<KeyValue>> EtcdClient::getPrefix(const std::string& prefix) {
  etcdserverpb::RangeRequest request;
  request.set_key(prefix);
  request.set_range_end(prefixRangeEnd(prefix));
  etcdserverpb::RangeResponse response;
  NN_RETURN_IF_ERROR(onSomeMember("Range", [&](Member& member) {
    return member.kv->Range(context(memberTimeout()).get(), request, &response);
  }));
  lastRevision_.store(response.header().revision());
  std::vector<KeyValue> found;
  for (const auto& kv : response.kvs()) found.push_back({kv.key(), kv.value(), kv.lease()});
  return found;
}

hal::Result<bool> EtcdClient::waitForChange(const std::string& prefix, int64_t revision,
                                            std::chrono::milliseconds timeout) {
  bool changed = false;
  const auto until = std::chrono::steady_clock::now() + timeout;
  NN_RETURN_IF_ERROR(onSomeMember("Watch", [&](Member& member) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return grpc::Status::OK;
    // At most a second per watch: a member that does not answer must not hold the caller, who
    // looks again after a quiet watch anyway.
    auto streamContext = context(std::min<std::chrono::milliseconds>(left, std::chrono::seconds(1)));
    auto stream = member.watch->Watch(streamContext.get());
    etcdserverpb::WatchRequest request;
    auto* create = request.mutable_create_request();
    create->set_key(prefix);
    create->set_range_end(prefixRangeEnd(prefix));
    create->set_start_revision(revision + 1);
    if (!stream->Write(request)) return stream->Finish();
    etcdserverpb::WatchResponse response;
    bool created = false;
    while (stream->Read(&response)) {
      created = created || response.created();
      if (response.events_size() > 0 || response.canceled()) {
        changed = true;  // a cancelled watch (history compacted) means: look again
        break;
      }
    }
    streamContext->TryCancel();
    const grpc::Status status = stream->Finish();
    // The deadline ending a watch that was set up is the normal "nothing changed".
    if (changed || (created && status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) ||
        status.error_code() == grpc::StatusCode::CANCELLED) {
      return grpc::Status::OK;
    }
    return status;
  }));
  return changed;
}

}  // namespace nnremote::farm
