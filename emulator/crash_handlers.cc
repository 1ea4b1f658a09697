#include "emulator/crash_handlers.h"

#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "emulator/crash_report.h"
#include "middleware/backend_calls.h"

namespace nnremote::emulator {
namespace {

std::atomic<LastWords> lastWordsHook{nullptr};
std::atomic<bool> reporting{false};
std::atomic<bool> reported{false};

// Which signal, and the crash report. Then the signal's default action ends the process, and a
// backend host's parent sees how it died.
void onCrashSignal(int signal, siginfo_t* info, void* context) {
  const char* name = sigabbrev_np(signal);
  char lastWords[16] = "signal ?";
  if (name != nullptr) {
    std::strcpy(lastWords, "SIG");
    std::strncat(lastWords, name, sizeof lastWords - 4);
  }
  char cause[160];
  describeCrashSignal(signal, *info, context, cause, sizeof cause);
  reportOnce("crashed", cause, lastWords, interruptedInstruction(context), /*fromSignal=*/true);
  ::signal(signal, SIG_DFL);
  ::raise(signal);
}

// A stack for the calling thread's signal handlers, so that its own stack overflowing is reported
// like any crash (the handler cannot run on a stack that has run out). A thread has none unless
// given one, or AddressSanitizer's. Kept while the thread lives.
void giveThreadASignalStack() {
  constexpr size_t kSize = 64 * 1024;
  stack_t current{};
  if (::sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) == 0) return;  // has one
  struct Owned {
    void* stack = MAP_FAILED;
    ~Owned() {
      if (stack == MAP_FAILED) return;
      const stack_t off{nullptr, SS_DISABLE, 0};
      ::sigaltstack(&off, nullptr);
      ::munmap(stack, kSize);
    }
  };
  thread_local Owned owned;
  owned.stack = ::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (owned.stack == MAP_FAILED) return;
  const stack_t stack{owned.stack, 0, kSize};
  ::sigaltstack(&stack, nullptr);
}

}  // namespace

void installCrashHandlers(LastWords lastWords) {
  lastWordsHook = lastWords;
  giveThreadASignalStack();
  middleware::BackendCall::setThreadSetup(giveThreadASignalStack);
  struct sigaction action {};
  action.sa_sigaction = onCrashSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(signal, &action, nullptr);
}

void reportOnce(const char* event, const char* cause, const char* lastWords, const void* from, bool fromSignal) {
  if (reporting.exchange(true)) {
    for (int waited = 0; waited < 1000 && !reported.load(); ++waited) {
      const timespec millisecond{0, 1000 * 1000};
      ::nanosleep(&millisecond, nullptr);
    }
    return;
  }
  if (const LastWords hook = lastWordsHook.load(); hook != nullptr && lastWords != nullptr) hook(lastWords);
  writeCrashReport(STDERR_FILENO, event, cause, from, fromSignal);
  reported = true;
}

void endOutOfMemory(const void* allocator) {
  constexpr const char* kCause = "out of memory (address_space_mib)";
  reportOnce("crashed", kCause, kCause, allocator, /*fromSignal=*/false);
  ::signal(SIGABRT, SIG_DFL);
  std::abort();
}

}  // namespace nnremote::emulator
