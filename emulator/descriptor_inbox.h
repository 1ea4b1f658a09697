// Shared-memory descriptors a backend host's parent handed over on the host channel
// (HostMessageType::kDescriptor), kept by token until RegisterMemory's passed_descriptor claims
// them. The descriptor and the RPC travel on different sockets, so a claim waits (bounded) for
// its descriptor to arrive.
#ifndef NNREMOTE_EMULATOR_DESCRIPTOR_INBOX_H_
#define NNREMOTE_EMULATOR_DESCRIPTOR_INBOX_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>

#include "hal/result.h"

namespace nnremote::emulator {

class DescriptorInbox {
 public:
  // Descriptors nobody claims are not kept without bound: past this many, the oldest is closed.
  static constexpr size_t kMaxUnclaimed = 256;

  DescriptorInbox() = default;
  ~DescriptorInbox();
  DescriptorInbox(const DescriptorInbox&) = delete;
  DescriptorInbox& operator=(const DescriptorInbox&) = delete;

  // Takes `descriptor` over.
  void put(uint64_t token, int descriptor);
  // The descriptor handed over with `token`, now the caller's; waits up to `timeout` for it.
  hal::Result<int> take(uint64_t token, std::chrono::milliseconds timeout);

 private:
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::map<uint64_t, int> descriptors_;  // by token; tokens grow, so the first is the oldest
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_DESCRIPTOR_INBOX_H_
