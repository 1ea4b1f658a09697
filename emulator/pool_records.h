// What npu_emulator --etcd publishes about its devices (farm::DeviceRecord): name, type, version,
// NPU summary, and load measured on each device's scheduler between two looks.
#ifndef NNREMOTE_EMULATOR_POOL_RECORDS_H_
#define NNREMOTE_EMULATOR_POOL_RECORDS_H_

#include <string>
#include <vector>

#include "farm/pool_registration.h"
#include "hal/i_device.h"

namespace nnremote::emulator {

// The records of `devices` as served at `address`; each call measures load since the last.
farm::PoolRegistration::RecordSource poolRecordsOf(std::vector<hal::SharedDevice> devices, std::string address);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_POOL_RECORDS_H_
