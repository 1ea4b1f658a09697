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

// The deleter of a held memory: gives its bytes and units back to each budget and lets go of the
// memory.
struct HeldBytes {
  hal::SharedMemory memory;
  std::vector<SharedBytes> held;
  uint64_t bytes;
  std::vector<SharedCount> units;
  void operator()(const hal::Memory* /*alias*/) {
    for (const SharedBytes& counter : held) counter->fetch_sub(bytes);
    for (const SharedCount& counter : units) counter->fetch_sub(1);
    memory.reset();
  }
};

// How a budget names its limit at the end of a refusal.
std::string limitOf(const ByteBudget& budget) {
  return "its limit of " + std::to_string(budget.limit) + " bytes (" + budget.field + " = " +
         std::to_string(budget.limit >> 20) + ")";
}

hal::Status reserve(const ByteBudget& budget, uint64_t bytes, const char* what) {
  uint64_t before = budget.held->load();
  do {
    if (bytes > budget.limit || before > budget.limit - bytes) {
      return makeError(bytes > budget.limit ? ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT : budget.whenFull)
             << what << " of " << bytes << " bytes would take the pool memory held by " << budget.holder << " from "
             << before << " bytes past " << limitOf(budget);
    }
  } while (!budget.held->compare_exchange_weak(before, before + bytes));
  return {};
}

hal::Status reserveOne(const CountBudget& budget) {
  const uint32_t before = budget.held->fetch_add(1);
  if (before < budget.limit) return {};
  budget.held->fetch_sub(1);
  return makeError(budget.whenFull) << budget.holder << " " << before << " " << budget.noun << ", its limit ("
                                    << budget.field << " = " << budget.limit << ")";
}

}  // namespace

hal::Status checkCouldFit(const std::vector<const ByteBudget*>& budgets, uint64_t bytes, const char* what) {
  for (const ByteBudget* budget : budgets) {
    if (bytes > budget->limit) {
      return makeError(ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT)
             << what << " take " << bytes << " bytes, more than the pool memory " << budget->holder
             << " may ever hold: " << limitOf(*budget);
    }
  }
  return {};
}

hal::Result<hal::SharedMemory> holdMemory(const std::vector<const ByteBudget*>& budgets,
                                          const std::vector<const CountBudget*>& counts, uint64_t bytes,
                                          const char* what,
                                          const std::function<hal::Result<hal::SharedMemory>()>& make) {
  HeldBytes holding{nullptr, {}, bytes, {}};
  auto giveBack = [&] { holding(nullptr); };
  for (const ByteBudget* budget : budgets) {
    if (hal::Status reserved = reserve(*budget, bytes, what); !reserved.ok()) {
      giveBack();
      return reserved.error();
    }
    holding.held.push_back(budget->held);
  }
  for (const CountBudget* budget : counts) {
    if (hal::Status reserved = reserveOne(*budget); !reserved.ok()) {
      giveBack();
      return reserved.error();
    }
    holding.units.push_back(budget->held);
  }
  auto memory = make();
  if (!memory.ok()) {
    giveBack();
    return memory.error();
  }
  holding.memory = std::move(memory).value();
  const hal::Memory* raw = holding.memory.get();
  return hal::SharedMemory(raw, std::move(holding));
}

hal::Result<QuotaSlot> QuotaSlot::take(const CountBudget& budget) {
  NN_RETURN_IF_ERROR(reserveOne(budget));
  return QuotaSlot(budget.held);
}

}  // namespace nnremote::emulator
