// nnremote farm list / farm wait: a farm's device pool in etcd (docs/farm.md).
#include "tools/farm_command.h"

#include <chrono>
#include <iomanip>
#include <iostream>

#include "absl/flags/flag.h"
#include "farm/pool.h"
#include "tools/command_support.h"
#include "tools/nnremote_flags.h"

namespace nnremote::tools {
namespace {

struct PoolQuery {
  std::shared_ptr<farm::EtcdClient> etcd;
  std::string pool;
};

hal::Result<PoolQuery> poolFromFlags() {
  const std::string endpoints = absl::GetFlag(FLAGS_etcd);
  if (endpoints.empty()) return hal::invalidArgument() << "--etcd=HOST:PORT[,HOST:PORT...] is required";
  PoolQuery query;
  query.pool = absl::GetFlag(FLAGS_pool);
  NN_RETURN_IF_ERROR(farm::validatePoolName(query.pool));
  NN_ASSIGN_OR_RETURN(query.etcd, farm::EtcdClient::create(endpoints));
  return query;
}

void printPool(const std::string& pool, const std::string& endpoints, const std::vector<farm::PoolDevice>& devices) {
  std::cout << "Pool '" << pool << "' at etcd " << endpoints << ": " << devices.size() << " device"
            << (devices.size() == 1 ? "" : "s") << "\n";
  if (devices.empty()) return;
  std::cout << std::left << "  " << std::setw(22) << "DEVICE" << std::setw(24) << "ADDRESS" << std::setw(13) << "TYPE"
            << std::setw(6) << "LOAD" << std::setw(7) << "QUEUE" << "HOLDER\n";
  for (const farm::PoolDevice& device : devices) {
    const farm::DeviceRecord& record = device.record;
    std::cout << "  " << std::setw(22) << record.device() << std::setw(24) << record.address() << std::setw(13)
              << record.type() << std::setw(6) << std::fixed << std::setprecision(2) << record.load()
              << std::setw(7) << record.queue_depth() << (device.holder.empty() ? "-" : device.holder) << "\n";
    if (!record.unavailable().empty()) std::cout << "    UNAVAILABLE: " << record.unavailable() << "\n";
  }
}

}  // namespace

int runFarmList() {
  auto query = poolFromFlags();
  if (!query.ok()) return fail("farm list", query.error());
  auto devices = farm::listPool(*query->etcd, query->pool);
  if (!devices.ok()) return fail("farm list", devices.error());
  printPool(query->pool, query->etcd->endpoints(), *devices);
  return 0;
}

int runFarmWait() {
  auto query = poolFromFlags();
  if (!query.ok()) return fail("farm wait", query.error());
  const size_t wanted = static_cast<size_t>(absl::GetFlag(FLAGS_devices).value);
  const auto wait = absl::ToChronoMilliseconds(absl::GetFlag(FLAGS_wait));
  const auto giveUp = std::chrono::steady_clock::now() + wait;
  for (;;) {
    auto devices = farm::listPool(*query->etcd, query->pool);
    // An etcd that does not answer now (a member down, a leader being elected) may answer later.
    if (!devices.ok() && farm::waitToAskAgain(devices.error(), giveUp)) continue;
    if (!devices.ok()) return fail("farm wait", devices.error());
    if (devices->size() >= wanted) {
      std::cout << devices->size() << " device" << (devices->size() == 1 ? "" : "s") << " up in pool '"
                << query->pool << "'\n";
      return 0;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(giveUp - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      printPool(query->pool, query->etcd->endpoints(), *devices);
      return fail("farm wait", hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
                                   << "only " << devices->size() << " of " << wanted << " devices came up within "
                                   << absl::FormatDuration(absl::GetFlag(FLAGS_wait)));
    }
    // Woken by the pool's next change, through an etcd Watch.
    if (auto changed = query->etcd->waitForChange(farm::poolPrefix(query->pool), query->etcd->lastRevision(), left);
        !changed.ok() && !farm::waitToAskAgain(changed.error(), giveUp)) {
      return fail("farm wait", changed.error());
    }
  }
}

}  // namespace nnremote::tools
