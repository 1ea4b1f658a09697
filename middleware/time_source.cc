#include "middleware/time_source.h"

#include <chrono>

namespace nnremote::middleware {
namespace {

class HostClock final : public TimeSource {
 public:
  hal::TimePoint now() const override { return hal::Clock::now(); }
  void waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                 hal::TimePoint until) const override {
    cv.wait_until(lock, until);
  }
};

}  // namespace

std::shared_ptr<const TimeSource> hostClock() {
  static const auto clock = std::make_shared<const HostClock>();
  return clock;
}

void ManualTimeSource::waitUntil(std::unique_lock<std::mutex>& lock, std::condition_variable& cv,
                                 hal::TimePoint until) const {
  if (now() >= until) return;
  cv.wait_for(lock, std::chrono::milliseconds(1));
}

}  // namespace nnremote::middleware
