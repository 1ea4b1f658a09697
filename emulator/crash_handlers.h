// What a process running vendor code does when it crashes: a backend host always, npu_emulator
// itself when it loads libraries in process (--backend-in-process); and the nnremote CLI, whose
// commands run unattended on test farms. Any thread's crash (SIGSEGV,
// SIGBUS, SIGFPE, SIGILL, SIGABRT) writes a crash report (crash_report.h) on stderr, then the
// signal's default action ends the process as it would have without the handlers.
#ifndef NNREMOTE_EMULATOR_CRASH_HANDLERS_H_
#define NNREMOTE_EMULATOR_CRASH_HANDLERS_H_

#include <sys/types.h>

namespace nnremote::emulator {

// Told the cause before the report is written (a backend host's last words to its parent, who
// must know it even if the report never ends). Async-signal-safe.
using LastWords = void (*)(const char* cause);

// Installs the handlers, and gives each thread a stack for them before its first call into a
// library (middleware::BackendCall::setThreadSetup), so that a library overflowing its thread's
// stack is reported too. Call prepareCrashReports as well, once the report's subject is known.
void installCrashHandlers(LastWords lastWords = nullptr);

// Writes a report (crash_report.h) unless one is written or being written: the process is
// ending, and only the first thread's is. One that comes meanwhile waits (bounded) for the first
// to be written, so that its own signal does not end the process halfway through it.
// `lastWords`, if given, goes to the LastWords hook first. True if this call wrote it.
// Async-signal-safe.
bool reportOnce(const char* event, const char* cause, const char* lastWords, const void* from, bool fromSignal);

// After this thread's report (reportOnce), every other thread's stack (crash_report.h): each is
// signalled and writes its own, one at a time, and this waits for them, a second at most. A
// thread that cannot take the signal (stopped, in uninterruptible sleep, blocking it) is named
// with the reason instead. For a hang, whose cause is often in another thread (the one holding
// what the hung call waits for), and for a child that stopped answering. Async-signal-safe as
// writeCrashReport is.
void reportOtherThreads();
// For a call that has run too long, whose thread is sent `signal` to write the report: false if
// `thread` would take it (then send it). If not (stopped, in uninterruptible sleep, as in a
// driver's ioctl that never returns, or blocking it), this writes the report for it unless one is
// written: the thread named with why it has no stack and where the kernel says it waits
// (thread_wait.h), then, if `otherThreadsToo`, every other thread's stack; true.
bool reportIfStackless(pid_t thread, int signal, const char* event, const char* cause, bool otherThreadsToo);
// The signal that asks a thread for its stack (installCrashHandlers handles it).
int threadStackSignal();

// For a new_handler: an allocation failed for good (the address space limit). Reports from the
// code that allocated (`allocator`: the new_handler's return address, in operator new), then
// aborts.
[[noreturn]] void endOutOfMemory(const void* allocator);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_CRASH_HANDLERS_H_
