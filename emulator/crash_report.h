// A crashed backend host's report, as Android's tombstones report a crashed HAL: what ended the
// child and in which call into the library, then the crashing thread's stack, one frame a line,
// each as the file it is in, the offset in that file (what addr2line takes) and the function's
// name where the file has symbols. It goes to the server's stderr, which the child shares, just
// before the server's own line about the crash (docs/backends.md#reading-a-crash-report).
#ifndef NNREMOTE_EMULATOR_CRASH_REPORT_H_
#define NNREMOTE_EMULATOR_CRASH_REPORT_H_

#include <signal.h>
#include <sys/types.h>

#include <string>

#include "emulator/thread_wait.h"

namespace nnremote::emulator {

// Before any crash: loads what unwinding needs (which allocates) and keeps the report's subject
// ("backend --backend=PATH:ARG" in a backend host, "the server" in npu_emulator) and the name of
// the program that writes it (each line's prefix), so that writing a report allocates nothing.
void prepareCrashReports(const std::string& subject, const std::string& programName = "npu_emulator");

// What ended the process, for a report's first line, into `out` (NUL-terminated): the signal's
// name, what the kernel says of it (e.g. "address not mapped") or what it means (a null pointer,
// the stack overflowing: judged by `ucontext`'s stack pointer, if given), and the address it
// concerns. Async-signal-safe.
void describeCrashSignal(int signal, const siginfo_t& info, const void* ucontext, char* out, size_t size);

// Writes the report to `fd`: what happened to the process (`event`, e.g. "crashed") and why
// (`cause`), the call into the library (middleware::BackendCall) if `cause` does not name it, and
// the thread, then its stack from the frame at `from`: a signal's interrupted instruction
// (`fromSignal`), or a return address, such as a handler's __builtin_return_address(0), whose
// function is then the first shown (the frames above it, the handler's and the report's own, are
// left out). Async-signal-safe but for `dladdr`, which takes the dynamic loader's lock: a crash
// inside dlopen would leave the report unwritten. One report at a time (its buffers are static).
void writeCrashReport(int fd, const char* event, const char* cause, const void* from, bool fromSignal);

// For a report of every thread (a hang, a child that stopped answering): after the first
// thread's report, a line that the others follow, then each other thread's stack, written by that
// thread: "thread T (NAME)[ in CALL]; its stack:" and its frames, as writeCrashReport writes
// them. The same constraints as writeCrashReport; one thread's at a time.
void writeOtherThreadsHeading(int fd);
void writeThreadStack(int fd, const void* from, bool fromSignal);
// For a thread that cannot write its own: "thread T (NAME) WHY", then where the kernel says it
// waits (thread_wait.h), if it does: "; it is in system call ioctl (fd 7: /dev/npu0, ...),
// sleeping in the kernel in npu_wait_done; where it will go on:", and the one frame it knows.
void writeThreadWithoutStack(int fd, pid_t thread, const char* name, const char* why, const ThreadWait& wait);
// A report as writeCrashReport's, about such a thread, written by another: "... EVENT: CAUSE, on
// thread T (NAME) WHY...", as above. For a call hung where no signal reaches its thread (a
// driver's ioctl that never returns), which cannot write its own.
void writeCrashReportOfStacklessThread(int fd, const char* event, const char* cause, pid_t thread, const char* name,
                                       const char* why, const ThreadWait& wait);

// The instruction a signal interrupted, from the context a SA_SIGINFO handler gets; nullptr
// where this architecture's context is not known here.
const void* interruptedInstruction(const void* ucontext);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_CRASH_REPORT_H_
