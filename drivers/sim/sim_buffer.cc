#include "drivers/sim/sim_buffer.h"

#include <cstring>

#include "hal/operand_types.h"

namespace nnremote::sim {

using hal::ErrorStatus;
using hal::makeError;

SimBuffer::SimBuffer(hal::Request::MemoryDomainToken token, hal::BufferOperand operand, std::set<Role> roles)
    : token_(token), operand_(std::move(operand)), roles_(std::move(roles)), dimensions_(operand_.dimensions) {}

hal::Result<hal::SharedMemory> SimBuffer::memoryForLocked(const std::vector<uint32_t>& dimensions) const {
  NN_ASSIGN_OR_RETURN(std::vector<uint32_t> combined, hal::combineDimensions(dimensions_, dimensions));
  if (hal::hasUnspecifiedDimensions(operand_.type, combined)) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "the device buffer's dimensions " << hal::toString(combined) << " are not fully known";
  }
  const uint64_t size = *hal::sizeOfData(operand_.type, combined);
  if (memory_ == nullptr || memory_->size() != size) {
    NN_ASSIGN_OR_RETURN(memory_, hal::createHeapMemory(size));
  }
  dimensions_ = combined;
  return memory_;
}

hal::Result<hal::SharedMemory> SimBuffer::memoryFor(const std::vector<uint32_t>& dimensions, bool isInput) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (isInput && !initialized_) {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << "device buffer " << static_cast<uint32_t>(token_) << " is read before anything was written to it";
  }
  return memoryForLocked(dimensions);
}

void SimBuffer::markInitialized(const std::vector<uint32_t>& dimensions) const {
  std::lock_guard<std::mutex> lock(mutex_);
  dimensions_ = dimensions;
  initialized_ = true;
}

hal::Status SimBuffer::copyTo(const hal::SharedMemory& dst) const {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!initialized_) {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << "device buffer " << static_cast<uint32_t>(token_) << " is uninitialized";
  }
  if (dst == nullptr || dst->size() != memory_->size()) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "copyTo destination has " << (dst ? dst->size() : 0) << " bytes; the buffer has "
           << memory_->size();
  }
  std::memcpy(dst->data(), memory_->data(), memory_->size());
  return {};
}

hal::Status SimBuffer::copyFrom(const hal::SharedMemory& src, const std::vector<uint32_t>& dimensions) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto memory = memoryForLocked(dimensions);
  if (!memory.ok()) return hal::withContext(memory.error(), "copyFrom");
  if (src == nullptr || src->size() != (*memory)->size()) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << "copyFrom source has " << (src ? src->size() : 0) << " bytes; a buffer of dimensions "
           << hal::toString(dimensions_) << " needs " << (*memory)->size();
  }
  std::memcpy((*memory)->data(), src->data(), src->size());
  initialized_ = true;
  return {};
}

}  // namespace nnremote::sim
