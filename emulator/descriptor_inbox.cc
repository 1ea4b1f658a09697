#include "emulator/descriptor_inbox.h"

#include <unistd.h>

namespace nnremote::emulator {

DescriptorInbox::~DescriptorInbox() {
  for (const auto& [token, descriptor] : descriptors_) ::close(descriptor);
}

void DescriptorInbox::put(uint64_t token, int descriptor) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, added] = descriptors_.emplace(token, descriptor);
    if (!added) {  // a token used twice: the newer descriptor is the one meant
      ::close(it->second);
      it->second = descriptor;
    }
    if (descriptors_.size() > kMaxUnclaimed) {
      ::close(descriptors_.begin()->second);
      descriptors_.erase(descriptors_.begin());
    }
  }
  arrived_.notify_all();
}

hal::Result<int> DescriptorInbox::take(uint64_t token, std::chrono::milliseconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!arrived_.wait_for(lock, timeout, [&] { return descriptors_.count(token) != 0; })) {
    return hal::makeError(hal::ErrorStatus::INVALID_ARGUMENT)
           << "passed_descriptor " << token << ": no descriptor was handed over with that token (waited "
           << timeout.count() << " ms)";
  }
  const auto it = descriptors_.find(token);
  const int descriptor = it->second;
  descriptors_.erase(it);
  return descriptor;
}

}  // namespace nnremote::emulator
