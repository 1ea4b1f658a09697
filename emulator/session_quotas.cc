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

namespace {

// The deleter of a counted reference: gives the bytes back and lets go of the memory.
struct CountedBytes {
  hal::SharedMemory memory;
  SharedBytes held;
  uint64_t bytes;
  void operator()(const hal::Memory* /*alias*/) {
    held->fetch_sub(bytes);
    memory.reset();
  }
};

}  // namespace

hal::Status reserveBytes(std::atomic<uint64_t>& held, uint64_t bytes, uint64_t limit, const std::string& what,
                         const char* field) {
  uint64_t before = held.load();
  do {
    if (bytes > limit || before > limit - bytes) {
      return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
             << what << " would take what this session holds (registered shared memory, unused bulk uploads "
             << "and outputs waiting for DownloadBulk) from " << before << " bytes past its limit of " << limit
             << " bytes (" << field << " = " << (limit >> 20) << ")";
    }
  } while (!held.compare_exchange_weak(before, before + bytes));
  return {};
}

hal::SharedMemory countedMemory(hal::SharedMemory memory, SharedBytes held, uint64_t bytes) {
  const hal::Memory* raw = memory.get();
  return hal::SharedMemory(raw, CountedBytes{std::move(memory), std::move(held), bytes});
}

bool isCounted(const hal::SharedMemory& memory) { return std::get_deleter<CountedBytes>(memory) != nullptr; }

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
