#include "emulator/pool_records.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>

#include "middleware/device_health.h"
#include "farm/pool.h"
#include "hal/operand_types.h"
#include "middleware/scheduled_device.h"

namespace nnremote::emulator {

namespace {

// The simulator's version string ends with its NPU in parentheses, e.g.
// "nnremote-sim 0.2 (16x16 OUTPUT_STATIONARY @ 800 MHz)"; other backends have none.
std::string npuSummary(const std::string& version) {
  const size_t open = version.rfind('(');
  if (open == std::string::npos || version.back() != ')') return "";
  return version.substr(open + 1, version.size() - open - 2);
}

struct LoadProbe {
  std::mutex mutex;
  std::vector<hal::Duration> busy;
  std::chrono::steady_clock::time_point lastLook = std::chrono::steady_clock::now();
};

}  // namespace

farm::PoolRegistration::RecordSource poolRecordsOf(std::vector<hal::SharedDevice> devices, std::string address) {
  auto probe = std::make_shared<LoadProbe>();
  probe->busy.assign(devices.size(), hal::Duration{0});
  for (size_t i = 0; i < devices.size(); ++i) {
    if (const auto* scheduler = middleware::findScheduler(devices[i])) probe->busy[i] = scheduler->load().busy;
  }
  return [devices = std::move(devices), address = std::move(address), probe, process = farm::thisProcessName()] {
    std::lock_guard<std::mutex> lock(probe->mutex);
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - probe->lastLook).count();
    probe->lastLook = now;
    std::vector<farm::DeviceRecord> records;
    for (size_t i = 0; i < devices.size(); ++i) {
      farm::DeviceRecord record;
      record.set_address(address);
      record.set_device(devices[i]->getName());
      record.set_type(hal::toString(devices[i]->getType()));
      record.set_version(devices[i]->getVersionString());
      record.set_npu(npuSummary(devices[i]->getVersionString()));
      record.set_emulator(process);
      if (const std::optional<middleware::DeviceHealth> health = middleware::supervisedHealthOf(*devices[i])) {
        record.set_unavailable(health->unavailable);
      }
      if (const auto* scheduler = middleware::findScheduler(devices[i])) {
        const middleware::DeviceScheduler::Load load = scheduler->load();
        const double busySeconds = std::chrono::duration<double>(load.busy - probe->busy[i]).count();
        probe->busy[i] = load.busy;
        const double engines = std::max<uint32_t>(1, scheduler->options().timeline.engines);
        // Two decimals: a registration rewrites a record only when its load really moved.
        const double share = elapsed > 0 ? std::min(1.0, busySeconds / (elapsed * engines)) : 0.0;
        record.set_load(std::round(share * 100.0) / 100.0);
        record.set_queue_depth(static_cast<uint32_t>(load.jobsNow));
      }
      records.push_back(std::move(record));
    }
    return records;
  };
}

}  // namespace nnremote::emulator
