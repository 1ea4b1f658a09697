#include "emulator/crash_handlers.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "emulator/crash_report.h"
#include "emulator/signal_safe_text.h"
#include "emulator/thread_wait.h"
#include "middleware/backend_calls.h"

// Sanitizers intercept pthread_create themselves, and AddressSanitizer gives every thread a
// signal stack already.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define NNREMOTE_SANITIZED_THREADS 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define NNREMOTE_SANITIZED_THREADS 1
#endif

namespace nnremote::emulator {
namespace {

std::atomic<LastWords> lastWordsHook{nullptr};
std::atomic<bool> reporting{false};
std::atomic<bool> reported{false};

// One thread writes its stack at a time (the report's buffers are static); each counts itself
// written when done.
std::atomic<bool> writingStack{false};
std::atomic<int> stacksWritten{0};

void sleepMillisecond() {
  const timespec millisecond{0, 1000 * 1000};
  ::nanosleep(&millisecond, nullptr);
}

// Takes the turn to write, waiting a second at most (a thread whose stack is being written may
// hang in the dynamic loader's lock); false if not had.
bool takeTurn() {
  for (int waited = 0; waited < 1000; ++waited) {
    if (!writingStack.exchange(true)) return true;
    sleepMillisecond();
  }
  return false;
}

void onThreadStackSignal(int, siginfo_t*, void* context) {
  const int savedErrno = errno;
  if (takeTurn()) {
    writeThreadStack(STDERR_FILENO, interruptedInstruction(context), /*fromSignal=*/true);
    writingStack = false;
  }
  ++stacksWritten;
  errno = savedErrno;
}

// Whether a thread of this process would take a signal now, and if not, why not.
enum class Reach { kTakes, kGone, kStopped, kUninterruptible, kBlocks };

// From its status file: its State, its SigBlk mask and its Name (into `name`). Without
// allocating.
Reach reachOf(pid_t thread, int signal, char* name, size_t nameSize) {
  SignalSafeText<63> path;
  path.text("/proc/self/task/").decimal(static_cast<uint64_t>(thread)).text("/status");
  static char status[4096];
  if (readSmallFile(path.c_str(), status, sizeof status) <= 0) return Reach::kGone;
  name[0] = '\0';
  if (const char* line = std::strstr(status, "Name:\t")) {
    size_t length = 0;
    for (line += 6; line[length] != '\n' && line[length] != '\0' && length + 1 < nameSize; ++length) name[length] = line[length];
    name[length] = '\0';
  }
  if (const char* state = std::strstr(status, "State:\t")) {
    if (state[7] == 'T' || state[7] == 't') return Reach::kStopped;
    if (state[7] == 'D') return Reach::kUninterruptible;
    if (state[7] == 'Z' || state[7] == 'X') return Reach::kGone;
  }
  const char* mask = std::strstr(status, "SigBlk:\t");
  if (mask == nullptr) return Reach::kTakes;
  uint64_t blocked = 0;
  for (mask += 8; (*mask >= '0' && *mask <= '9') || (*mask >= 'a' && *mask <= 'f'); ++mask) {
    blocked = blocked << 4 | static_cast<uint64_t>(*mask <= '9' ? *mask - '0' : *mask - 'a' + 10);
  }
  return (blocked >> (signal - 1) & 1) == 0 ? Reach::kTakes : Reach::kBlocks;
}

// The threads of this process but the calling one, by id, from /proc/self/task (read without
// allocating); at most `capacity`.
int otherThreads(pid_t* threads, int capacity) {
  const int directory = ::open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory < 0) return 0;
  const pid_t self = ::gettid();
  int count = 0;
  alignas(dirent64) static char entries[4096];
  for (;;) {
    const ssize_t size = ::getdents64(directory, entries, sizeof entries);
    if (size <= 0) break;
    for (ssize_t at = 0; at < size;) {
      const auto* entry = reinterpret_cast<const dirent64*>(entries + at);
      at += entry->d_reclen;
      pid_t thread = 0;
      const char* digit = entry->d_name;
      for (; *digit >= '0' && *digit <= '9'; ++digit) thread = thread * 10 + (*digit - '0');
      if (*digit != '\0' || thread <= 0 || thread == self || count == capacity) continue;
      threads[count++] = thread;
    }
  }
  ::close(directory);
  return count;
}

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

std::atomic<bool> installed{false};

}  // namespace

#ifndef NNREMOTE_SANITIZED_THREADS
namespace {

struct ThreadStart {
  void* (*routine)(void*);
  void* argument;
};

void* startWithASignalStack(void* raw) {
  const ThreadStart start = *static_cast<ThreadStart*>(raw);
  delete static_cast<ThreadStart*>(raw);
  if (installed.load()) giveThreadASignalStack();
  return start.routine(start.argument);
}

}  // namespace

#endif

void installCrashHandlers(LastWords lastWords) {
  installed = true;
  lastWordsHook = lastWords;
  giveThreadASignalStack();
  middleware::BackendCall::setThreadSetup(giveThreadASignalStack);
  struct sigaction action {};
  action.sa_sigaction = onCrashSignal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) ::sigaction(signal, &action, nullptr);
  struct sigaction stack {};
  stack.sa_sigaction = onThreadStackSignal;
  stack.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&stack.sa_mask);
  ::sigaction(threadStackSignal(), &stack, nullptr);
}

bool reportOnce(const char* event, const char* cause, const char* lastWords, const void* from, bool fromSignal) {
  if (reporting.exchange(true)) {
    for (int waited = 0; waited < 1000 && !reported.load(); ++waited) sleepMillisecond();
    return false;
  }
  if (const LastWords hook = lastWordsHook.load(); hook != nullptr && lastWords != nullptr) hook(lastWords);
  // In turn too: the other threads' stacks that may follow use the same static buffers.
  const bool turn = takeTurn();
  writeCrashReport(STDERR_FILENO, event, cause, from, fromSignal);
  if (turn) writingStack = false;
  reported = true;
  return true;
}

int threadStackSignal() { return SIGRTMIN + 5; }

namespace {

// Why a thread that cannot take the signal has no stack in the report.
const char* whyWithoutStack(Reach reach) {
  return reach == Reach::kStopped           ? "is stopped (by a signal, or a debugger): no stack"
         : reach == Reach::kUninterruptible ? "is in uninterruptible sleep in the kernel (state D), "
                                              "where no signal reaches it: no stack"
                                            : "blocks the signal that asks for its stack: no stack";
}

// reportOtherThreads, leaving out `described` too (0: none), whose part is written already.
void reportThreadsBut(pid_t described) {
  static pid_t threads[256];
  const int count = otherThreads(threads, 256);
  writeOtherThreadsHeading(STDERR_FILENO);
  stacksWritten = 0;
  int asked = 0;
  for (int i = 0; i < count; ++i) {
    if (threads[i] == described) continue;
    char name[17];
    const Reach reach = reachOf(threads[i], threadStackSignal(), name, sizeof name);
    if (reach == Reach::kGone) continue;
    if (reach == Reach::kTakes && ::tgkill(::getpid(), threads[i], threadStackSignal()) == 0) {
      ++asked;
      continue;
    }
    // Named all the same, with why its stack is missing and where it waits: a thread stuck in
    // the kernel (a driver's ioctl that never returns) is often what a hang is about.
    if (takeTurn()) {
      writeThreadWithoutStack(STDERR_FILENO, threads[i], name, whyWithoutStack(reach), readThreadWait(threads[i]));
      writingStack = false;
    }
  }
  // Each writes in turn. One that does not take its signal after all (it went into
  // uninterruptible sleep meanwhile, say) is given up on.
  for (int waited = 0; waited < 1000 && stacksWritten.load() < asked; ++waited) sleepMillisecond();
}

}  // namespace

void reportOtherThreads() { reportThreadsBut(0); }

bool reportIfStackless(pid_t thread, int signal, const char* event, const char* cause, bool otherThreadsToo) {
  char name[17];
  const Reach reach = reachOf(thread, signal, name, sizeof name);
  if (reach == Reach::kTakes || reach == Reach::kGone) return false;
  if (reporting.exchange(true)) return true;
  writeCrashReportOfStacklessThread(STDERR_FILENO, event, cause, thread, name, whyWithoutStack(reach),
                                    readThreadWait(thread));
  if (otherThreadsToo) reportThreadsBut(thread);
  reported = true;
  return true;
}

void endOutOfMemory(const void* allocator) {
  constexpr const char* kCause = "out of memory (address_space_mib)";
  reportOnce("crashed", kCause, kCause, allocator, /*fromSignal=*/false);
  ::signal(SIGABRT, SIG_DFL);
  std::abort();
}

}  // namespace nnremote::emulator

#ifndef NNREMOTE_SANITIZED_THREADS
// Every thread of a process with crash handlers gets a stack for them as it starts, the library's
// own threads too, which never call through the guard (BackendCall::setThreadSetup): their stack
// overflowing is reported like any crash rather than ending the process unreported. Defined in
// the program, this pthread_create is the one every library resolves to, dlopen'ed ones too; it
// starts the thread through libc's.
extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attributes, void* (*routine)(void*),
                              void* argument) noexcept {
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static const auto libc = reinterpret_cast<Create>(::dlsym(RTLD_NEXT, "pthread_create"));
  if (libc == nullptr) return EAGAIN;
  auto* start = new (std::nothrow) nnremote::emulator::ThreadStart{routine, argument};
  if (start == nullptr) return libc(thread, attributes, routine, argument);
  const int created = libc(thread, attributes, nnremote::emulator::startWithASignalStack, start);
  if (created != 0) delete start;
  return created;
}
#endif
