// emulator/crash_report.h: what a crashed backend host says on its way out. The cause from a
// signal's details; the report's header; its stack, from the interrupted instruction of a real
// signal down to the code that raised it, or from the caller of a handler, each frame named.
#include "emulator/crash_report.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

namespace nnremote::emulator {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// With `stackPointer`, as the signal's context had it.
std::string describe(int signal, int code, uintptr_t address, uintptr_t stackPointer = 0) {
  siginfo_t info{};
  info.si_signo = signal;
  info.si_code = code;
  info.si_addr = reinterpret_cast<void*>(address);
  ucontext_t context{};
#if defined(__x86_64__)
  context.uc_mcontext.gregs[REG_RSP] = static_cast<greg_t>(stackPointer);
#elif defined(__aarch64__)
  context.uc_mcontext.sp = stackPointer;
#endif
  char out[160];
  describeCrashSignal(signal, info, stackPointer != 0 ? &context : nullptr, out, sizeof out);
  return out;
}

TEST(CrashReportTest, TheCauseNamesTheSignalWhatTheKernelSaysOfItAndTheAddress) {
  EXPECT_EQ(describe(SIGSEGV, SEGV_MAPERR, 0), "SIGSEGV (null pointer dereference, at 0x0)");
  EXPECT_EQ(describe(SIGSEGV, SEGV_MAPERR, 0x18), "SIGSEGV (null pointer dereference, at 0x18)");  // a field
  EXPECT_EQ(describe(SIGSEGV, SEGV_MAPERR, 0x10000), "SIGSEGV (address not mapped, at 0x10000)");
  // Just below the stack pointer: the guard page below the thread's stack.
  EXPECT_EQ(describe(SIGSEGV, SEGV_ACCERR, 0x7f0000000ff8, 0x7f0000001000),
            "SIGSEGV (stack overflow, at 0x7f0000000ff8)");
  EXPECT_EQ(describe(SIGSEGV, SEGV_ACCERR, 0x7e0000000000, 0x7f0000001000),
            "SIGSEGV (no permission for the access, at 0x7e0000000000)");
  EXPECT_EQ(describe(SIGSEGV, SEGV_ACCERR, 0x7f00dead0000), "SIGSEGV (no permission for the access, at 0x7f00dead0000)");
  EXPECT_EQ(describe(SIGBUS, BUS_ADRERR, 0x1000), "SIGBUS (nonexistent physical address, at 0x1000)");
  EXPECT_EQ(describe(SIGFPE, FPE_INTDIV, 0x4242), "SIGFPE (integer divide by zero, at 0x4242)");
  EXPECT_EQ(describe(SIGILL, 99, 0x10), "SIGILL (at 0x10)");  // a code without a known meaning
  // Sent by raise (abort) or kill, not by a faulting instruction: no address to speak of.
  EXPECT_EQ(describe(SIGABRT, SI_TKILL, 0), "SIGABRT");
  EXPECT_EQ(describe(SIGSEGV, SI_USER, 0), "SIGSEGV");
  char tiny[5];
  siginfo_t info{};
  describeCrashSignal(SIGSEGV, info, nullptr, tiny, sizeof tiny);
  EXPECT_STREQ(tiny, "SIGS");
}

std::string reportPath() { return std::string(std::getenv("TEST_TMPDIR")) + "/report.txt"; }

std::string readReport() {
  std::ifstream in(reportPath());
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// As a handler that is not a signal's (the out-of-memory one) calls it.
__attribute__((noinline)) void reportFromAHandler(int fd) {
  writeCrashReport(fd, "crashed", "out of memory (address_space_mib)", __builtin_return_address(0),
                   /*fromSignal=*/false);
  asm volatile("");
}

TEST(CrashReportTest, WithoutASignalTheStackStartsAtTheCallerOfTheHandler) {
  prepareCrashReports("backend --backend=libvendor.so:arg");
  FILE* file = std::fopen(reportPath().c_str(), "w");
  ASSERT_NE(file, nullptr);
  reportFromAHandler(::fileno(file));
  std::fclose(file);
  const std::string report = readReport();
  EXPECT_THAT(report, StartsWith("npu_emulator: backend --backend=libvendor.so:arg (pid " + std::to_string(::getpid()) +
                                 ") crashed: out of memory (address_space_mib), on thread " +
                                 std::to_string(::gettid()) + " ("));
  EXPECT_THAT(report, HasSubstr("); its stack:\nnpu_emulator:   #00 pc 0x"));
  // #00 is this test's body, which called the handler: neither the report nor the handler shows.
  const std::string first = report.substr(report.find("#00"), report.find('\n', report.find("#00")) - report.find("#00"));
  EXPECT_THAT(first, HasSubstr("WithoutASignalTheStackStartsAtTheCallerOfTheHandler_Test::TestBody()"));
  EXPECT_THAT(report, Not(HasSubstr("reportFromAHandler")));
  EXPECT_THAT(report, HasSubstr("#01 pc 0x"));
}

int reportFd = -1;
const void* interrupted = nullptr;

void onSignal(int, siginfo_t*, void* context) {
  interrupted = interruptedInstruction(context);
  writeCrashReport(reportFd, "crashed", "SIGUSR1", interrupted, /*fromSignal=*/true);
}

__attribute__((noinline)) void raiseTheSignal() {
  ::raise(SIGUSR1);
  asm volatile("");
}

TEST(CrashReportTest, FromASignalTheStackStartsAtTheInterruptedInstruction) {
  prepareCrashReports("backend --backend=libvendor.so");
  FILE* file = std::fopen(reportPath().c_str(), "w");
  ASSERT_NE(file, nullptr);
  reportFd = ::fileno(file);
  struct sigaction action {}, previous{};
  action.sa_sigaction = onSignal;
  action.sa_flags = SA_SIGINFO;
  ::sigaction(SIGUSR1, &action, &previous);
  raiseTheSignal();
  ::sigaction(SIGUSR1, &previous, nullptr);
  std::fclose(file);
  ASSERT_NE(interrupted, nullptr);
  const std::string report = readReport();
  EXPECT_THAT(report, HasSubstr("crashed: SIGUSR1, on thread "));
  // The interrupted instruction is in libc (raise's system call), then raise's callers: this test.
  const size_t first = report.find("#00 pc 0x");
  ASSERT_NE(first, std::string::npos) << report;
  EXPECT_THAT(report.substr(first, report.find('\n', first) - first), HasSubstr("libc.so"));
  EXPECT_THAT(report, HasSubstr("raiseTheSignal()"));
  EXPECT_THAT(report, HasSubstr("FromASignalTheStackStartsAtTheInterruptedInstruction_Test::TestBody()"));
  EXPECT_THAT(report, Not(HasSubstr("onSignal")));
}

__attribute__((noinline)) void writeThisThreadsStack(int fd) {
  writeThreadStack(fd, __builtin_return_address(0), /*fromSignal=*/false);
  asm volatile("");
}

TEST(CrashReportTest, AnotherThreadsSectionNamesItAndShowsItsStackOrWhyItHasNone) {
  prepareCrashReports("backend --backend=libvendor.so");
  FILE* file = std::fopen(reportPath().c_str(), "w");
  ASSERT_NE(file, nullptr);
  writeOtherThreadsHeading(::fileno(file));
  writeThisThreadsStack(::fileno(file));
  writeThreadWithoutStack(::fileno(file), 4242, "vendor_worker", "is stopped (by a signal, or a debugger): no stack",
                          ThreadWait{});
  std::fclose(file);
  const std::string report = readReport();
  char name[17] = {};
  ::pthread_getname_np(::pthread_self(), name, sizeof name);
  EXPECT_THAT(report, StartsWith("npu_emulator: backend --backend=libvendor.so (pid " + std::to_string(::getpid()) +
                                 "): its other threads:\nnpu_emulator: thread " + std::to_string(::gettid()) + " (" +
                                 name + "); its stack:\nnpu_emulator:   #00 pc 0x"));
  const size_t first = report.find("#00 pc 0x");
  EXPECT_THAT(report.substr(first, report.find('\n', first) - first),
              HasSubstr("AnotherThreadsSectionNamesItAndShowsItsStackOrWhyItHasNone_Test::TestBody()"));
  EXPECT_THAT(report, HasSubstr("\nnpu_emulator: thread 4242 (vendor_worker) is stopped (by a signal, or a debugger): "
                                "no stack\n"));
}

__attribute__((noinline)) void aDriverCall() { asm volatile(""); }

// As the kernel would tell of a thread in a driver's ioctl: the call, its file, the kernel
// function it sleeps in, and the instruction it would go on from (here in aDriverCall).
ThreadWait inADriversIoctl(int file) {
  ThreadWait wait;
  wait.known = true;
  wait.syscall = SYS_ioctl;
  wait.arguments[0] = static_cast<uint64_t>(file);
  wait.arguments[1] = 0xc0184e01;
  std::strcpy(wait.kernelFunction, "npu_wait_done");
  wait.pc = reinterpret_cast<uintptr_t>(&aDriverCall);
  return wait;
}

TEST(CrashReportTest, AThreadWithoutAStackIsShownWhereTheKernelSaysItWaits) {
  prepareCrashReports("backend --backend=libvendor.so");
  const int device = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(device, 0);
  FILE* file = std::fopen(reportPath().c_str(), "w");
  ASSERT_NE(file, nullptr);
  writeThreadWithoutStack(::fileno(file), 4243, "npu_submit", "is in uninterruptible sleep: no stack",
                          inADriversIoctl(device));
  std::fclose(file);
  const std::string report = readReport();
  EXPECT_THAT(report, StartsWith("npu_emulator: thread 4243 (npu_submit) is in uninterruptible sleep: no stack; it is "
                                 "in system call ioctl (fd " +
                                 std::to_string(device) +
                                 ": /dev/null, request 0xc0184e01), sleeping in the kernel in npu_wait_done; where "
                                 "it will go on:\nnpu_emulator:   #00 pc 0x"));
  EXPECT_THAT(report, HasSubstr("(nnremote::emulator::(anonymous namespace)::aDriverCall())\n"));
  ::close(device);
}

TEST(CrashReportTest, AReportCanBeAboutAThreadThatCannotWriteItsOwn) {
  prepareCrashReports("backend --backend=libvendor.so");
  FILE* file = std::fopen(reportPath().c_str(), "w");
  ASSERT_NE(file, nullptr);
  writeCrashReportOfStacklessThread(::fileno(file), "is killed",
                                    "IPreparedModel::execute had not returned after 301 ms (call_timeout_ms = 300)",
                                    4243, "work_pool", "is in uninterruptible sleep: no stack", inADriversIoctl(0));
  std::fclose(file);
  const std::string report = readReport();
  EXPECT_THAT(report, StartsWith("npu_emulator: backend --backend=libvendor.so (pid " + std::to_string(::getpid()) +
                                 ") is killed: IPreparedModel::execute had not returned after 301 ms (call_timeout_ms "
                                 "= 300), on thread 4243 (work_pool) is in uninterruptible sleep: no stack; it is in "
                                 "system call ioctl (fd 0"));
  EXPECT_THAT(report, HasSubstr("aDriverCall())\n"));
}

}  // namespace
}  // namespace nnremote::emulator
