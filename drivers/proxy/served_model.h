// What a burst needs of the prepared model it runs: where that model is on the server now.
// ProxyPreparedModel is one; ProxyBurst uses only this, so the prepared model can create its
// bursts without the two depending on each other.
#ifndef NNREMOTE_DRIVERS_PROXY_SERVED_MODEL_H_
#define NNREMOTE_DRIVERS_PROXY_SERVED_MODEL_H_

#include <cstdint>
#include <utility>

#include "drivers/proxy/session_channel.h"
#include "hal/result.h"

namespace nnremote::proxy {

class ServedModel {
 public:
  virtual ~ServedModel() = default;
  // The session to call in and the model's id there, preparing it again first if the session
  // was replaced since.
  virtual hal::Result<std::pair<SessionRef, uint64_t>> current() const = 0;
};

}  // namespace nnremote::proxy

#endif  // NNREMOTE_DRIVERS_PROXY_SERVED_MODEL_H_
