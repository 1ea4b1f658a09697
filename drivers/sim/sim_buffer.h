// A device buffer of the simulated NPU (a memory domain): device memory a request can name by
// token, filled and read with copyFrom/copyTo.
#ifndef NNREMOTE_DRIVERS_SIM_SIM_BUFFER_H_
#define NNREMOTE_DRIVERS_SIM_SIM_BUFFER_H_

#include <mutex>
#include <set>
#include <tuple>

#include "hal/i_buffer.h"
#include "hal/i_prepared_model.h"
#include "hal/validation.h"

namespace nnremote::sim {

class SimBuffer final : public hal::IBuffer {
 public:
  // role: (prepared model, io index, is input).
  using Role = std::tuple<const hal::IPreparedModel*, uint32_t, bool>;

  SimBuffer(hal::Request::MemoryDomainToken token, hal::BufferOperand operand, std::set<Role> roles);

  hal::Request::MemoryDomainToken getToken() const override { return token_; }
  hal::Status copyTo(const hal::SharedMemory& dst) const override;
  hal::Status copyFrom(const hal::SharedMemory& src, const std::vector<uint32_t>& dimensions) const override;

  bool hasRole(const hal::IPreparedModel* model, uint32_t ioIndex, bool isInput) const {
    return roles_.count({model, ioIndex, isInput}) != 0;
  }
  const hal::BufferOperand& operand() const { return operand_; }

  // The buffer's memory for an execution, sized for `dimensions` (combined with the buffer's).
  // Inputs must have been written.
  hal::Result<hal::SharedMemory> memoryFor(const std::vector<uint32_t>& dimensions, bool isInput) const;
  // Marks the buffer written by an execution with these dimensions.
  void markInitialized(const std::vector<uint32_t>& dimensions) const;

 private:
  hal::Result<hal::SharedMemory> memoryForLocked(const std::vector<uint32_t>& dimensions) const;

  const hal::Request::MemoryDomainToken token_;
  const hal::BufferOperand operand_;
  const std::set<Role> roles_;
  mutable std::mutex mutex_;
  mutable std::vector<uint32_t> dimensions_;  // known after allocation, copyFrom or an execution
  mutable hal::SharedMemory memory_;
  mutable bool initialized_ = false;
};

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_SIM_BUFFER_H_
