// A device-resident buffer from IDevice::allocate (a memory domain).
#ifndef NNREMOTE_HAL_I_BUFFER_H_
#define NNREMOTE_HAL_I_BUFFER_H_

#include "hal/types.h"

namespace nnremote::hal {

class IBuffer {
 public:
  virtual ~IBuffer() = default;
  // The token requests use to name this buffer as a pool.
  virtual Request::MemoryDomainToken getToken() const = 0;
  // Copies the buffer's contents into `dst`, which must be exactly the buffer's size.
  virtual Status copyTo(const SharedMemory& dst) const = 0;
  // Fills the buffer from `src`; `dimensions` completes a buffer whose shape is not fully known.
  virtual Status copyFrom(const SharedMemory& src, const std::vector<uint32_t>& dimensions) const = 0;
};

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_I_BUFFER_H_
