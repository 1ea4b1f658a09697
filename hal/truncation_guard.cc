#include "hal/truncation_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace nnremote::hal {

// A registered mapping, read by the signal handler without a lock. `end` is written before
// `begin` is published, and `begin` is cleared first when the slot is given up, so a handler that
// sees the same non-zero `begin` before and after reading `end` has read one mapping's bounds.
struct GuardedMapping::Slot {
  std::atomic<uintptr_t> begin{0};  // 0: free
  std::atomic<uintptr_t> end{0};
  std::atomic<bool> truncated{false};
  bool taken = false;  // under registryMutex()
};

namespace {

constexpr size_t kSlotsPerSlab = 256;

// Slabs are never freed: the handler may walk them at any moment.
struct Slab {
  GuardedMapping::Slot slots[kSlotsPerSlab];
  std::atomic<Slab*> next{nullptr};
};
std::atomic<Slab*> firstSlab{nullptr};

std::mutex& registryMutex() {
  static auto* const mutex = new std::mutex;
  return *mutex;
}

GuardedMapping::Slot* takeSlot() {
  std::lock_guard<std::mutex> lock(registryMutex());
  std::atomic<Slab*>* link = &firstSlab;
  for (Slab* slab = link->load(); slab != nullptr; slab = link->load()) {
    for (GuardedMapping::Slot& slot : slab->slots) {
      if (!slot.taken) {
        slot.taken = true;
        return &slot;
      }
    }
    link = &slab->next;
  }
  Slab* slab = new Slab;
  slab->slots[0].taken = true;
  link->store(slab, std::memory_order_release);
  return &slab->slots[0];
}

struct sigaction previousAction;  // written once, before the handler is installed

// Replaces the registered mapping holding `address`, if there is one, with private zero pages.
// Async-signal-safe: atomics and one system call (not libc's mmap, which a sanitizer may wrap).
bool replaceTruncatedMapping(uintptr_t address) {
  for (Slab* slab = firstSlab.load(std::memory_order_acquire); slab != nullptr;
       slab = slab->next.load(std::memory_order_acquire)) {
    for (GuardedMapping::Slot& slot : slab->slots) {
      const uintptr_t begin = slot.begin.load(std::memory_order_acquire);
      if (begin == 0 || address < begin) continue;
      const uintptr_t end = slot.end.load(std::memory_order_acquire);
      if (address >= end || slot.begin.load(std::memory_order_acquire) != begin) continue;
      const long replaced = ::syscall(SYS_mmap, begin, end - begin, PROT_READ | PROT_WRITE,
                                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
      if (replaced == -1) return false;
      slot.truncated.store(true, std::memory_order_release);
      return true;
    }
  }
  return false;
}

void onBusError(int signal, siginfo_t* info, void*) {
  // BUS_ADRERR: a page past the end of the object behind a shared mapping.
  if (info->si_code == BUS_ADRERR && replaceTruncatedMapping(reinterpret_cast<uintptr_t>(info->si_addr))) return;
  // Not ours: the handler in place before takes it. A fault is raised again by the retried
  // access; a signal someone sent (si_code <= 0) is sent again, unless it was to be ignored.
  const bool sent = info->si_code <= 0;
  if (sent && previousAction.sa_handler == SIG_IGN) return;
  ::sigaction(signal, &previousAction, nullptr);
  if (sent) ::syscall(SYS_tgkill, ::getpid(), ::syscall(SYS_gettid), signal);
}

}  // namespace

void armTruncationGuard() {
  static std::once_flag armed;
  std::call_once(armed, [] {
    struct sigaction action {};
    action.sa_sigaction = onBusError;
    // On the thread's signal stack where it has one (emulator/crash_handlers.h gives them out).
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGBUS, nullptr, &previousAction);
    ::sigaction(SIGBUS, &action, nullptr);
  });
}

GuardedMapping::GuardedMapping(void* begin, size_t length) : slot_(takeSlot()) {
  static const size_t kPage = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const uintptr_t start = reinterpret_cast<uintptr_t>(begin);
  // A mapping covers whole pages, at least one (hal maps an empty pool as one byte); so does a
  // fault past the object's end.
  const size_t pages = (std::max<size_t>(length, 1) + kPage - 1) / kPage;
  slot_->truncated.store(false, std::memory_order_relaxed);
  slot_->end.store(start + pages * kPage, std::memory_order_relaxed);
  slot_->begin.store(start, std::memory_order_release);
}

GuardedMapping::~GuardedMapping() {
  slot_->begin.store(0, std::memory_order_release);
  std::lock_guard<std::mutex> lock(registryMutex());
  slot_->taken = false;
}

bool GuardedMapping::truncated() const { return slot_->truncated.load(std::memory_order_acquire); }

}  // namespace nnremote::hal
