// npu_emulator --config=remote:ADDR: the devices of another npu_emulator, reached through the
// proxy driver and served as this emulator's own, so a farm host can front a board. Names stay
// the far side's; the far side schedules them, and its errors (DEAD_OBJECT included) pass through.
#ifndef NNREMOTE_EMULATOR_REMOTE_DEVICES_H_
#define NNREMOTE_EMULATOR_REMOTE_DEVICES_H_

#include <string>
#include <vector>

#include "hal/i_device.h"
#include "hal/result.h"
#include "drivers/proxy/connection.h"

namespace nnremote::emulator {

inline constexpr const char* kRemoteConfigPrefix = "remote:";

// How a front emulator reaches the far one: it reconnects when the far side restarts, but gives
// up within 2 s, so that its own clients hear DEAD_OBJECT promptly rather than wait in silence.
// A relay, it waits for the far side's answers on a shared queue asleep, not spinning.
proxy::ConnectionOptions chainedConnectionOptions();

hal::Result<std::vector<hal::SharedDevice>> connectRemoteDevices(
    const std::string& address, const proxy::ConnectionOptions& options = chainedConnectionOptions());

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_REMOTE_DEVICES_H_
