#include "emulator/session_quotas.h"

namespace nnremote::emulator {

using hal::ErrorStatus;
using hal::makeError;

hal::Status checkHolding(size_t held, uint64_t limit, const char* noun, const char* field) {
  if (held < limit) return {};
  return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
         << "this session holds " << held << " " << noun << ", its limit (" << field << " = " << limit
         << "); release one first";
}

hal::Status reserveBytes(std::atomic<uint64_t>& counter, uint64_t bytes, uint64_t limit, const char* field) {
  uint64_t held = counter.load();
  do {
    if (bytes > limit || held > limit - bytes) {
      return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
             << "registering " << bytes << " bytes would take this session's registered memory from " << held
             << " past its limit of " << limit << " bytes (" << field << " = " << (limit >> 20) << ")";
    }
  } while (!counter.compare_exchange_weak(held, held + bytes));
  return {};
}

hal::Result<QuotaSlot> QuotaSlot::take(const SharedCount& count, uint32_t limit, ErrorStatus code, const char* noun,
                                       const char* field) {
  const uint32_t before = count->fetch_add(1);
  if (before >= limit) {
    count->fetch_sub(1);
    return makeError(code) << "this session has " << before << " " << noun << ", its limit (" << field << " = "
                           << limit << ")";
  }
  return QuotaSlot(count);
}

}  // namespace nnremote::emulator
