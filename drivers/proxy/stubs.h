// The generated gRPC stubs the proxy calls the server through, held under names of our own so
// that headers can declare them. The generated service header takes about as long to compile as
// a whole typical file, and its Stub classes are nested and final (neither declarable alone nor
// derivable), so the proxy's headers declare these and only the files that make calls include
// this one. Each is used like a pointer to its stub: connection.stub()->Execute(...).
#ifndef NNREMOTE_DRIVERS_PROXY_STUBS_H_
#define NNREMOTE_DRIVERS_PROXY_STUBS_H_

#include <memory>

#include "wire/nnremote.grpc.pb.h"

namespace nnremote::proxy {

template <typename Stub>
class StubHolder {
 public:
  explicit StubHolder(const std::shared_ptr<grpc::ChannelInterface>& channel) : stub_(channel) {}
  Stub* operator->() { return &stub_; }

 private:
  Stub stub_;
};

class AcceleratorStub final : public StubHolder<wire::Accelerator::Stub> {
  using StubHolder::StubHolder;
};
class AcceleratorWaitsStub final : public StubHolder<wire::AcceleratorWaits::Stub> {
  using StubHolder::StubHolder;
};
class SessionWatchStub final : public StubHolder<wire::SessionWatch::Stub> {
  using StubHolder::StubHolder;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_STUBS_H_
