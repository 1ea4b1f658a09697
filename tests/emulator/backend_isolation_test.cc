// npu_emulator --backend runs each library in a supervised child process (docs/backends.md#isolation).
// With real processes throughout (the server, its backend hosts, crashing_backend.so failing as
// vendor code does): a crash ends only the child, the calls it was serving fail with DEAD_OBJECT
// naming the cause, the next call runs on a restarted child while the server's other devices
// never notice; hangs, frozen children and broken limits are found and ended; a crash loop makes
// the device unavailable, with the reason, for every way of asking; and no child outlives the
// server.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "drivers/proxy/proxy_device.h"
#include "emulator/server_config.h"
#include "hal/memory.h"
#include "testing/add_model.h"
#include "testing/emulator_process.h"
#include "testing/proc_status.h"
#include "testing/sanitizers.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {
namespace {

using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr const char* kCrashing = "--backend=tests/emulator/backends/crashing_backend.so:";
constexpr const char* kCrashDevice = "crashtest-edge16";
constexpr const char* kSimDevice = "nnremote-edge16";

// A --server-config file with these backend_isolation fields (textproto) for every library.
std::string isolationConfig(const std::string& name, const std::string& fields) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name + ".textproto";
  std::ofstream(path) << "backend_isolation { " << fields << " }\n";
  return "--server-config=" + path;
}

class Client {
 public:
  explicit Client(const std::string& address) {
    auto connection = proxy::Connection::connect(address);
    EXPECT_TRUE(connection.ok()) << connection.error().message;
    if (!connection.ok()) return;
    auto devices = proxy::ProxyDevice::discover(*connection);
    EXPECT_TRUE(devices.ok()) << devices.error().message;
    if (devices.ok()) devices_ = *devices;
  }

  std::shared_ptr<proxy::ProxyDevice> device(const std::string& name) const {
    for (const auto& device : devices_) {
      if (device->getName() == name) return device;
    }
    ADD_FAILURE() << "no device " << name;
    return nullptr;
  }

  hal::Result<hal::SharedPreparedModel> prepare(const std::string& name) const {
    const auto proxy = device(name);
    if (proxy == nullptr) return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "no device " << name;
    return proxy->prepareModel(testing::twoInputAddModel(), hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                               hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  }

 private:
  std::vector<std::shared_ptr<proxy::ProxyDevice>> devices_;
};

// 1+10, 2+20 on `prepared`, checking the sums when it succeeds.
hal::Status addOnce(const hal::IPreparedModel& prepared) {
  NN_ASSIGN_OR_RETURN(auto io, hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8}));
  NN_RETURN_IF_ERROR(prepared.execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).status());
  EXPECT_EQ(hal::fromMemory<float>(io.outputs[0], 2), (std::vector<float>{11, 22}));
  return {};
}

// A prepared model's first sync execution reaches the child as a plain call, later ones through
// bursts (isolated_backend.h): the library is in IPreparedModel::execute or IBurst::execute.

// How the server reports the device's backend host now (a fresh look, as `nnremote devices` takes).
wire::BackendHostHealth hostOf(const std::string& address, const std::string& device) {
  Client client(address);
  const auto proxy = client.device(device);
  if (proxy == nullptr || proxy->backendHost() == nullptr) {
    ADD_FAILURE() << device << " is not reported as served by a backend host";
    return {};
  }
  return *proxy->backendHost();
}

// Waits (bounded) until the device's backend host satisfies `done`. Generously: a child that
// crashes on probation dies at the lowest weight, which on a machine busy with other work took
// over 30 s (docs/backends.md).
template <typename Done>
wire::BackendHostHealth waitForHost(const std::string& address, const std::string& device, Done done) {
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  wire::BackendHostHealth health = hostOf(address, device);
  while (!done(health) && std::chrono::steady_clock::now() < giveUp) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    health = hostOf(address, device);
  }
  EXPECT_TRUE(done(health)) << "backend host never got there; last: " << health.ShortDebugString();
  return health;
}

TEST(BackendIsolationTest, ASegfaultEndsOnlyTheChildAndTheNextCallRunsOnARestartedOne) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-segv");
  testing::EmulatorProcess server(address, {"--config=edge16", std::string(kCrashing) + "segfault:1"});
  Client client(address);
  auto crashing = client.prepare(kCrashDevice);
  auto simulated = client.prepare(kSimDevice);
  ASSERT_TRUE(crashing.ok()) << crashing.error().message;
  ASSERT_TRUE(simulated.ok()) << simulated.error().message;
  const int firstPid = static_cast<int>(hostOf(address, kCrashDevice).pid());
  EXPECT_GT(firstPid, 0);

  ASSERT_TRUE(addOnce(**crashing).ok());
  const hal::Status crashed = addOnce(**crashing);  // the library's 2nd execution segfaults
  ASSERT_FALSE(crashed.ok());
  EXPECT_EQ(crashed.error().code, hal::ErrorStatus::DEAD_OBJECT);
  EXPECT_THAT(crashed.error().message, HasSubstr("killed by SIGSEGV in IBurst::execute"));
  // The server and its in-process device did not notice.
  ASSERT_TRUE(addOnce(**simulated).ok());
  // The same prepared model runs again, on a restarted child (the proxy prepares it there again).
  const hal::Status again = addOnce(**crashing);
  EXPECT_TRUE(again.ok()) << again.error().message;
  const wire::BackendHostHealth health = hostOf(address, kCrashDevice);
  EXPECT_TRUE(health.running());
  EXPECT_EQ(health.restarts(), 1u);
  EXPECT_NE(static_cast<int>(health.pid()), firstPid);
  EXPECT_THAT(health.last_exit(), HasSubstr("killed by SIGSEGV in IBurst::execute"));
  EXPECT_EQ(health.unavailable(), "");
  EXPECT_EQ(Client(address).device(kSimDevice)->backendHost(), nullptr) << "in process: no backend host";
}

// Where a test keeps its server's stderr (testing::EmulatorProcess's stderrFile).
std::string serverLog(const std::string& name) { return std::string(std::getenv("TEST_TMPDIR")) + "/" + name + ".log"; }

// The server's stderr once it holds `needle`; bounded, as waitForHost.
std::string logOnceItHolds(const std::string& path, const std::string& needle) {
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  std::string text;
  for (;;) {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (text.find(needle) != std::string::npos || std::chrono::steady_clock::now() > giveUp) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_THAT(text, HasSubstr(needle)) << "the server never wrote it";
  return text;
}

// A child that its library's fault ends: a server with the crashing backend given `fault` and
// `limits` (its isolation config, if any), and one execution there, which fails with DEAD_OBJECT. The
// server lives on (to be asked about its host), and its log is read once the child is being
// restarted.
struct EndedChild {
  std::string address;
  std::unique_ptr<testing::EmulatorProcess> server;
  hal::Status status;
  std::string log;
};

EndedChild executeUntilTheChildEnds(const std::string& name, const std::string& fault, const std::string& limits = "") {
  EndedChild ended;
  ended.address = testing::EmulatorProcess::uniqueAddress("isolation-" + name);
  const std::string log = serverLog(name);
  std::vector<std::string> flags{std::string(kCrashing) + fault};
  if (!limits.empty()) flags.push_back(isolationConfig(name, limits));
  ended.server = std::make_unique<testing::EmulatorProcess>(ended.address, flags, log);
  Client client(ended.address);
  auto crashing = client.prepare(kCrashDevice);
  if (!crashing.ok()) {
    ADD_FAILURE() << crashing.error().message;
    ended.status = crashing.error();
    return ended;
  }
  ended.status = addOnce(**crashing);
  EXPECT_EQ(ended.status.code(), hal::ErrorStatus::DEAD_OBJECT);
  ended.log = logOnceItHolds(log, "; restarting in");
  return ended;
}

// One frame of a crash report (emulator/crash_report.h).
struct Frame {
  size_t number = 0;
  std::string offset, file, function;
};

// The frames of the first crash report in a server's log.
std::vector<Frame> reportedFrames(const std::string& log) {
  std::vector<Frame> frames;
  const size_t stack = log.find("; its stack:\n");
  const size_t report = stack == std::string::npos ? stack : log.rfind('\n', stack) + 1;
  if (report == std::string::npos) return frames;
  std::istringstream lines(log.substr(report));
  std::string line;
  std::getline(lines, line);  // the report's first line
  const std::regex pattern(R"(npu_emulator:   #(\d+) pc 0x([0-9a-f]+)  (\S+)(?: \((.*)\))?)");
  std::smatch match;
  while (std::getline(lines, line)) {
    if (line.find("npu_emulator:   ... the same frame ") == 0) continue;  // a run, shown once
    if (!std::regex_match(line, match, pattern)) break;
    frames.push_back({std::stoul(match[1]), match[2], match[3], match[4]});
  }
  return frames;
}

// One of the other threads a report shows after the first (a hang's, a frozen child's).
struct ThreadStack {
  std::string name, call;  // call: the call into the library it is in, if any
  std::vector<Frame> frames;
  std::string withoutStack;  // why it has none, if it has none
  std::string waits;         // then where the kernel says it waits, if it says
};

// The other threads of the first report in a server's log that has them.
std::vector<ThreadStack> otherThreads(const std::string& log) {
  std::vector<ThreadStack> threads;
  const size_t heading = log.find("): its other threads:\n");
  if (heading == std::string::npos) return threads;
  std::istringstream lines(log.substr(log.find('\n', heading) + 1));
  const std::regex thread(R"(npu_emulator: thread \d+ \((.*)\)(?: in (\S+))?; its stack:)");
  const std::regex frame(R"(npu_emulator:   #(\d+) pc 0x([0-9a-f]+)  (\S+)(?: \((.*)\))?)");
  const std::regex withoutStack(
      R"(npu_emulator: thread \d+ \((.*?)\) (.*?): no stack(?:; it is (.*?))?(?:; where it will go on:)?)");
  std::string line;
  std::smatch match;
  while (std::getline(lines, line)) {
    if (std::regex_match(line, match, thread)) {
      threads.push_back({match[1], match[2], {}, "", ""});
    } else if (std::regex_match(line, match, withoutStack)) {
      threads.push_back({match[1], "", {}, match[2], match[3]});
    } else if (!threads.empty() && std::regex_match(line, match, frame)) {
      threads.back().frames.push_back({std::stoul(match[1]), match[2], match[3], match[4]});
    } else if (line.find("npu_emulator:   ... the same frame ") != 0) {
      break;
    }
  }
  return threads;
}

// What addr2line, which a user would run on the report, says is at `offset` in `file`.
std::string addr2lineFunction(const std::string& file, const std::string& offset) {
  FILE* pipe = ::popen(("addr2line -f -C -e '" + file + "' 0x" + offset).c_str(), "r");
  if (pipe == nullptr) return "";
  char line[4096] = {};
  const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
  ::pclose(pipe);
  return read ? line : "";
}

bool endsWith(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

// Whether a frame of `frames` is in a file named `file` and names `function`.
bool hasFrame(const std::vector<Frame>& frames, const std::string& file, const std::string& function) {
  return std::any_of(frames.begin(), frames.end(), [&](const Frame& frame) {
    return endsWith(frame.file, file) && frame.function.find(function) != std::string::npos;
  });
}

TEST(BackendIsolationTest, ACrashReportNamesTheFaultTheCallAndEachFrameAsAddr2lineFindsIt) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-report");
  const std::string log = serverLog("report");
  testing::EmulatorProcess server(address, {std::string(kCrashing) + "segfault:0"}, log);
  Client client(address);
  auto crashing = client.prepare(kCrashDevice);
  ASSERT_TRUE(crashing.ok()) << crashing.error().message;
  ASSERT_FALSE(addOnce(**crashing).ok());
  const std::string text = logOnceItHolds(log, "; restarting in");
  // What ended it, where and in which call, on which thread; then the server's own line.
  const size_t report =
      text.find(" crashed: SIGSEGV (null pointer dereference, at 0x0) in IPreparedModel::execute, on thread ");
  ASSERT_NE(report, std::string::npos) << text;
  EXPECT_LT(report, text.find("killed by SIGSEGV in IPreparedModel::execute; restarting in")) << text;
  const std::vector<Frame> frames = reportedFrames(text);
  ASSERT_GE(frames.size(), 4u) << text;
  for (size_t i = 0; i < frames.size(); ++i) EXPECT_EQ(frames[i].number, i) << text;  // no run here
  // From the faulting instruction in the library, through the fault's function there, down into
  // the server's guard around every call into a library.
  EXPECT_TRUE(endsWith(frames[0].file, "crashing_backend.so")) << text;
  EXPECT_TRUE(hasFrame(frames, "crashing_backend.so", "FaultInjector::beforeExecution")) << text;
  EXPECT_TRUE(hasFrame(frames, "npu_emulator", "GuardedPreparedModel::execute")) << text;
  // The offset is the address addr2line takes in that file: it finds the same function.
  const std::string function = frames[0].function.substr(0, frames[0].function.rfind("()"));
  const std::string name = function.substr(function.rfind("::") + 2);
  EXPECT_THAT(addr2lineFunction(frames[0].file, frames[0].offset), HasSubstr(name)) << text;
}

TEST(BackendIsolationTest, ALibraryOverflowingItsThreadsStackIsReportedLikeAnyCrash) {
  const EndedChild overflowed = executeUntilTheChildEnds("overflow", "overflow:0");
  ASSERT_FALSE(overflowed.status.ok());
  // The handler ran, on a stack of its own: the cause names the call.
  EXPECT_THAT(overflowed.status.error().message, HasSubstr("killed by SIGSEGV in IPreparedModel::execute"));
  const std::string& text = overflowed.log;
  EXPECT_THAT(text,
              ContainsRegex(" crashed: SIGSEGV \\(stack overflow, at 0x[0-9a-f]+\\) in IPreparedModel::execute, on "));
  // The recursion, its run of frames shown once with its count.
  const std::vector<Frame> frames = reportedFrames(text);
  EXPECT_TRUE(hasFrame(frames, "crashing_backend.so", "overflowStack")) << text;
  EXPECT_THAT(text, ContainsRegex("npu_emulator:   \\.\\.\\. the same frame [0-9]+ times more\n")) << text;
  // The restarted child serves again.
  const wire::BackendHostHealth health =
      waitForHost(overflowed.address, kCrashDevice,
                  [](const wire::BackendHostHealth& h) { return h.restarts() >= 1 && h.running(); });
  EXPECT_THAT(health.last_exit(), HasSubstr("killed by SIGSEGV in IPreparedModel::execute"));
}

// Also built without AddressSanitizer (backend_isolation_unsanitized_test), which gives every
// thread a signal stack of its own accord: there, the server gives one to each thread as it
// starts (crash_handlers.cc).
TEST(BackendIsolationTest, ALibrarysOwnThreadOverflowingItsStackIsReportedToo) {
  const EndedChild overflowed = executeUntilTheChildEnds("thread-overflow", "thread_overflow:0");
  ASSERT_FALSE(overflowed.status.ok());
  EXPECT_THAT(overflowed.status.error().message, HasSubstr("killed by SIGSEGV"));
  // On the library's thread, in no call into the library: its stack is the recursion.
  const std::string& text = overflowed.log;
  EXPECT_THAT(text, ContainsRegex(" crashed: SIGSEGV \\(stack overflow, at 0x[0-9a-f]+\\), on thread [0-9]+ "
                                  "\\(vendor_worker\\); its stack:\n"));
  EXPECT_TRUE(hasFrame(reportedFrames(text), "crashing_backend.so", "overflowStack")) << text;
}

TEST(BackendIsolationTest, InProcessALibrarysCrashEndsTheServerWhichWritesTheReport) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("in-process-report");
  const std::string log = serverLog("in-process");
  testing::EmulatorProcess server(address, {"--backend-in-process", std::string(kCrashing) + "segfault:0"}, log);
  Client client(address);
  auto crashing = client.prepare(kCrashDevice);
  ASSERT_TRUE(crashing.ok()) << crashing.error().message;
  EXPECT_EQ(addOnce(**crashing).error().code, hal::ErrorStatus::DEAD_OBJECT);
  // The server itself ends, by the library's signal, as it would without its handlers...
  const int status = server.waitForExit(std::chrono::seconds(60));
  ASSERT_NE(status, -1) << "the server did not end";
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGSEGV);
  // ...having said where.
  const std::string text = logOnceItHolds(log, "; its stack:");
  EXPECT_THAT(text, ContainsRegex("npu_emulator: the server \\(pid [0-9]+\\) crashed: SIGSEGV \\(null pointer "
                                  "dereference, at 0x0\\) in IPreparedModel::execute, on thread "));
  EXPECT_TRUE(hasFrame(reportedFrames(text), "crashing_backend.so", "FaultInjector::beforeExecution")) << text;
}

TEST(BackendIsolationTest, ACrashLoopMakesTheDeviceUnavailableWithTheReason) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-loop");
  testing::EmulatorProcess server(
      address, {"--config=edge16", std::string(kCrashing) + "abort:op=ADD",
                isolationConfig("loop", "crash_loop_crashes: 3 crash_loop_window_s: 120 restart_backoff_ms: 10")});
  Client client(address);
  auto crashing = client.prepare(kCrashDevice);
  ASSERT_TRUE(crashing.ok()) << crashing.error().message;
  // Every execution of a model with an ADD aborts; each gets DEAD_OBJECT naming SIGABRT.
  for (int crash = 0; crash < 3; ++crash) {
    const hal::Status status = addOnce(**crashing);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.error().code, hal::ErrorStatus::DEAD_OBJECT);
    EXPECT_THAT(status.error().message, HasSubstr("SIGABRT"));
  }
  const wire::BackendHostHealth health =
      waitForHost(address, kCrashDevice, [](const wire::BackendHostHealth& h) { return !h.unavailable().empty(); });
  EXPECT_THAT(health.unavailable(), HasSubstr("crashed 3 times within 120 s"));
  EXPECT_THAT(health.unavailable(), HasSubstr("killed by SIGABRT in IBurst::execute"));
  EXPECT_FALSE(health.running());
  // Given up on: calls fail at once with the reason, not after a reconnection timeout.
  const auto start = std::chrono::steady_clock::now();
  const hal::Status refused = addOnce(**crashing);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, hal::ErrorStatus::DEAD_OBJECT);
  EXPECT_THAT(refused.error().message, HasSubstr("crashed 3 times"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  auto preparedNow = client.prepare(kCrashDevice);
  ASSERT_FALSE(preparedNow.ok());
  EXPECT_THAT(preparedNow.error().message, HasSubstr("crashed 3 times"));
  // The rest of the server is untouched.
  auto simulated = client.prepare(kSimDevice);
  ASSERT_TRUE(simulated.ok()) << simulated.error().message;
  EXPECT_TRUE(addOnce(**simulated).ok());
}

TEST(BackendIsolationTest, ACallThatNeverReturnsIsAHangAndEndsTheChild) {
  const EndedChild hung = executeUntilTheChildEnds("hang", "hang:0", "call_timeout_ms: 300 restart_backoff_ms: 10");
  ASSERT_FALSE(hung.status.ok());
  EXPECT_THAT(hung.status.error().message, HasSubstr("killed: IPreparedModel::execute had not returned after"));
  EXPECT_THAT(hung.status.error().message, HasSubstr("call_timeout_ms = 300"));
  const wire::BackendHostHealth health =
      waitForHost(hung.address, kCrashDevice, [](const wire::BackendHostHealth& h) { return h.restarts() >= 1; });
  EXPECT_THAT(health.last_exit(), HasSubstr("had not returned after"));
  // Before it was killed, the thread in that call wrote where it waits: in the library's fault.
  const std::string& text = hung.log;
  EXPECT_THAT(text, ContainsRegex(" is killed: IPreparedModel::execute had not returned after [0-9]+ ms "
                                  "\\(call_timeout_ms = 300\\), on thread [0-9]+ \\(work_pool\\); its stack:\n"));
  EXPECT_TRUE(hasFrame(reportedFrames(text), "crashing_backend.so", "FaultInjector::beforeExecution")) << text;
  // Then each other thread's, written by that thread (the cause of a hang is often in another):
  // among them the main one, which answers the parent.
  const std::vector<ThreadStack> others = otherThreads(text);
  EXPECT_GE(others.size(), 2u) << text;
  EXPECT_TRUE(std::any_of(others.begin(), others.end(), [](const ThreadStack& thread) {
    return hasFrame(thread.frames, "npu_emulator", "runBackendHost");
  })) << text;
  EXPECT_LT(text.find("): its other threads:"), text.find("; restarting in")) << text;
}

TEST(BackendIsolationTest, ACallHungInTheKernelIsReportedWithTheSystemCallItSleepsIn) {
  if (testing::kUnderThreadSanitizer) {
    GTEST_SKIP() << "ThreadSanitizer runs the injected hang's vfork as fork, whose caller sleeps interruptibly";
  }
  // The execution sleeps where no signal reaches its thread (state D), as in a driver's ioctl
  // that never returns, so that thread cannot write its own stack: the child's main thread writes
  // the report for it, with the system call and the instruction it would go on from.
  const EndedChild hung =
      executeUntilTheChildEnds("kernel-hang", "kernel_hang:0", "call_timeout_ms: 300 restart_backoff_ms: 10");
  ASSERT_FALSE(hung.status.ok());
  EXPECT_THAT(hung.status.error().message, HasSubstr("killed: IPreparedModel::execute had not returned after"));
  const std::string& text = hung.log;
  // glibc's vfork is the vfork system call on x86-64, clone on aarch64.
  EXPECT_THAT(text, ContainsRegex(" is killed: IPreparedModel::execute had not returned after [0-9]+ ms "
                                  "\\(call_timeout_ms = 300\\), on thread [0-9]+ \\(work_pool\\) is in uninterruptible "
                                  "sleep in the kernel \\(state D\\), where no signal reaches it: no stack; it is in "
                                  "system call (vfork|clone)[^\n]*; where it will go on:\n"
                                  "npu_emulator:   #00 pc 0x[0-9a-f]+  [^ ]*libc\\.so\\.6 \\([^ ]*vfork\\)\n"));
  // Then the other threads, each writing its own stack: the one that called the library's
  // execute is not among them again.
  const std::vector<ThreadStack> others = otherThreads(text);
  EXPECT_GE(others.size(), 1u) << text;
  for (const ThreadStack& thread : others) {
    EXPECT_NE(thread.call, "IPreparedModel::execute") << text;
  }
  EXPECT_LT(text.find("): its other threads:"), text.find("; restarting in")) << text;
  // A thread in state D still dies with its process: the child is replaced.
  const wire::BackendHostHealth health = waitForHost(
      hung.address, kCrashDevice, [](const wire::BackendHostHealth& h) { return h.restarts() >= 1 && h.running(); });
  EXPECT_THAT(health.last_exit(), HasSubstr("had not returned after"));
}

TEST(BackendIsolationTest, AChildThatStopsAnsweringReportsEveryThreadEachHungCallAmongThem) {
  // Two executions hang in the library (and no call limit ends them); then the child's main
  // thread, which answers the parent's health checks, is stopped as a debugger stops one thread.
  // The child goes on running but answers no more: the parent asks it for a report by signal, and
  // whichever thread takes it writes every thread's stack, both hung calls among them.
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-unanswering");
  const std::string log = serverLog("unanswering");
  testing::EmulatorProcess server(address,
                                  {std::string(kCrashing) + "hang:op=ADD",
                                   isolationConfig("unanswering",
                                                   "health_check_interval_ms: 50 health_check_timeout_ms: 500 "
                                                   "restart_backoff_ms: 10 restart_probation_ms: 0")},
                                  log);
  const pid_t child = static_cast<pid_t>(hostOf(address, kCrashDevice).pid());
  ASSERT_GT(child, 0);
  Client first(address), second(address);
  auto a = first.prepare(kCrashDevice);
  auto b = second.prepare(kCrashDevice);
  ASSERT_TRUE(a.ok() && b.ok());
  hal::Status hungA, hungB;
  std::thread callA([&] { hungA = addOnce(**a); });
  std::thread callB([&] { hungB = addOnce(**b); });
  logOnceItHolds(log, "injected hang at execution 2 ");
  if (::ptrace(PTRACE_SEIZE, child, nullptr, nullptr) != 0) {
    const int error = errno;
    ::kill(child, SIGKILL);  // ends the hung calls
    callA.join();
    callB.join();
    GTEST_SKIP() << "this test may not trace its server's children: " << std::strerror(error);
  }
  EXPECT_EQ(::ptrace(PTRACE_INTERRUPT, child, nullptr, nullptr), 0) << std::strerror(errno);
  // A traced child is its tracer's to reap first; the server, its parent, waits for that.
  int status = 0;
  for (int i = 0; i < 9000 &&
                  !(::waitpid(child, &status, __WALL | WNOHANG) == child && (WIFEXITED(status) || WIFSIGNALED(status)));
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(WIFSIGNALED(status)) << "the child was not killed";
  callA.join();
  callB.join();
  for (const hal::Status& hung : {hungA, hungB}) {
    ASSERT_FALSE(hung.ok());
    EXPECT_THAT(hung.error().message, HasSubstr("killed: stopped answering health checks (no answer within 500 ms"));
  }
  const std::string text = logOnceItHolds(log, "; restarting in");
  EXPECT_THAT(text, ContainsRegex(" is killed: stopped answering health checks \\(no answer within 500 ms, "
                                  "health_check_timeout_ms\\), on thread [0-9]+ \\(.*\\); its stack:\n"));
  // The main thread is stopped and cannot write: it is named, with why. Each other one writes
  // its own, each hung call's thread in the library's fault (the first one's may have taken the
  // signal and be the report's first).
  const std::vector<ThreadStack> others = otherThreads(text);
  EXPECT_EQ(std::count_if(others.begin(), others.end(),
                          [](const ThreadStack& thread) {
                            return thread.withoutStack == "is stopped (by a signal, or a debugger)";
                          }),
            1)
      << text;
  // With where it stopped, as the kernel tells: in its wait for the parent's next message.
  for (const ThreadStack& thread : others) {
    if (!thread.withoutStack.empty()) {
      EXPECT_THAT(thread.waits, StartsWith("in ")) << text;
    }
  }
  std::vector<std::vector<Frame>> hungStacks;
  for (const ThreadStack& thread : others) {
    if (thread.call == "IPreparedModel::execute") hungStacks.push_back(thread.frames);
  }
  const size_t firstLine = text.find(" is killed: stopped answering");
  if (text.find(" in IPreparedModel::execute, on thread ", firstLine) < text.find('\n', firstLine)) {
    hungStacks.push_back(reportedFrames(text));
  }
  ASSERT_EQ(hungStacks.size(), 2u) << text;
  for (const auto& frames : hungStacks) {
    EXPECT_TRUE(hasFrame(frames, "crashing_backend.so", "FaultInjector::beforeExecution")) << text;
  }
}

TEST(BackendIsolationTest, AFrozenChildFailsItsHealthCheckAndIsReplaced) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-frozen");
  testing::EmulatorProcess server(
      address, {std::string(kCrashing) + "error:1000000",
                isolationConfig("frozen", "health_check_interval_ms: 50 health_check_timeout_ms: 300")});
  const wire::BackendHostHealth before = hostOf(address, kCrashDevice);
  ASSERT_GT(before.pid(), 0u);
  ASSERT_EQ(::kill(static_cast<pid_t>(before.pid()), SIGSTOP), 0);
  const wire::BackendHostHealth after = waitForHost(
      address, kCrashDevice, [](const wire::BackendHostHealth& h) { return h.restarts() >= 1 && h.running(); });
  // Stopped whole, it could write no report: the cause says so.
  EXPECT_THAT(after.last_exit(), HasSubstr("stopped answering health checks"));
  EXPECT_THAT(after.last_exit(), HasSubstr("; it was stopped (state T: by a signal, or a debugger)"));
  EXPECT_NE(after.pid(), before.pid());
  Client client(address);
  auto prepared = client.prepare(kCrashDevice);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  EXPECT_TRUE(addOnce(**prepared).ok());
}

TEST(BackendIsolationTest, ACallOverItsCpuLimitEndsTheChildWithTheCause) {
  const EndedChild spun = executeUntilTheChildEnds("cpu", "spin:0", "call_cpu_ms: 200 restart_backoff_ms: 10");
  ASSERT_FALSE(spun.status.ok());
  EXPECT_THAT(spun.status.error().message, HasSubstr("IPreparedModel::execute used"));
  EXPECT_THAT(spun.status.error().message, HasSubstr("ms of CPU time (call_cpu_ms = 200)"));
  // Its stack, from where it spins: in the library's fault.
  const std::string& text = spun.log;
  EXPECT_THAT(text, HasSubstr(" is killed: IPreparedModel::execute used "));
  EXPECT_TRUE(hasFrame(reportedFrames(text), "crashing_backend.so", "FaultInjector::beforeExecution")) << text;
}

TEST(BackendIsolationTest, AnAllocationPastTheAddressSpaceLimitEndsTheChildWithTheCause) {
  if (testing::kUnderSanitizers) {
    GTEST_SKIP() << "the sanitizers reserve terabytes of shadow address space: no RLIMIT_AS fits them";
  }
  const EndedChild grew =
      executeUntilTheChildEnds("memory", "allocate:0", "address_space_mib: 1536 restart_backoff_ms: 10");
  ASSERT_FALSE(grew.status.ok());
  EXPECT_THAT(grew.status.error().message,
              HasSubstr("killed by SIGABRT: out of memory (address_space_mib) in IPreparedModel::execute"));
  // The report shows where it allocated: from the allocation that failed, up into the library.
  const std::string& text = grew.log;
  EXPECT_THAT(text, HasSubstr(" crashed: out of memory (address_space_mib) in IPreparedModel::execute, on thread "));
  const std::vector<Frame> frames = reportedFrames(text);
  ASSERT_FALSE(frames.empty()) << text;
  EXPECT_THAT(frames[0].function, HasSubstr("operator new")) << text;
  EXPECT_TRUE(hasFrame(frames, "crashing_backend.so", "FaultInjector::beforeExecution")) << text;
}

TEST(BackendIsolationTest, AFaultAimedAtAHostedDeviceStrikesInItsChildOnly) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-fault");
  testing::EmulatorProcess server(address, {"--config=edge16", "--backend=drivers/sim/sim_backend.so:large128",
                                            "--fault=crash:0:nnremote-large128"});
  Client client(address);
  auto hosted = client.prepare("nnremote-large128");
  auto simulated = client.prepare(kSimDevice);
  ASSERT_TRUE(hosted.ok()) << hosted.error().message;
  ASSERT_TRUE(simulated.ok()) << simulated.error().message;
  const hal::Status crashed = addOnce(**hosted);
  ASSERT_FALSE(crashed.ok());
  EXPECT_THAT(crashed.error().message, HasSubstr("killed by SIGKILL"));
  EXPECT_TRUE(addOnce(**simulated).ok());
  const hal::Status again = addOnce(**hosted);
  EXPECT_TRUE(again.ok()) << again.error().message;
}

// The lines of /proc/PID/maps that map `sharedName` (a POSIX shared-memory object).
std::vector<std::string> mappingsOf(int pid, const std::string& sharedName) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::vector<std::string> found;
  for (std::string line; std::getline(maps, line);) {
    if (line.find("/dev/shm" + sharedName) != std::string::npos) found.push_back(line);
  }
  return found;
}

TEST(BackendIsolationTest, PoolsReachTheChildByDescriptorEvenAfterTheClientUnlinkedTheirNames) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-fd");
  testing::EmulatorProcess server(address, {"--config=large128", "--backend=drivers/sim/sim_backend.so:edge16"});
  Client client(address);
  auto prepared = client.prepare(kSimDevice);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io =
      hal::makeRequest({hal::toBytes<float>({1, 2}), hal::toBytes<float>({10, 20})}, {8}, hal::createSharedMemory);
  ASSERT_TRUE(io.ok()) << io.error().message;
  const auto run = [&] {
    std::fill_n(io->outputs[0]->data(), 8, uint8_t{0});
    const auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt);
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 2), (std::vector<float>{11, 22}));
  };
  run();
  run();  // the second through a burst, with the same pools
  const int firstPid = static_cast<int>(hostOf(address, kSimDevice).pid());
  // The child maps the client's very pages: nothing is copied on the way.
  for (const auto& pool : {io->inputs[0], io->inputs[1], io->outputs[0]}) {
    EXPECT_EQ(mappingsOf(firstPid, pool->sharedName()).size(), 1u) << pool->sharedName() << " in the first child";
  }

  // A client may unlink a pool's name once the server has it (AOSP's ashmem has none at all). The
  // server keeps the pages by descriptor, and hands them so to a restarted child.
  for (const auto& pool : {io->inputs[0], io->inputs[1], io->outputs[0]}) {
    ASSERT_EQ(::shm_unlink(pool->sharedName().c_str()), 0) << pool->sharedName();
  }
  ASSERT_EQ(::kill(firstPid, SIGKILL), 0);
  waitForHost(address, kSimDevice,
              [](const wire::BackendHostHealth& health) { return health.running() && health.restarts() == 1; });
  run();
  run();
  const int secondPid = static_cast<int>(hostOf(address, kSimDevice).pid());
  ASSERT_NE(secondPid, firstPid);
  for (const auto& pool : {io->inputs[0], io->inputs[1], io->outputs[0]}) {
    const auto mappings = mappingsOf(secondPid, pool->sharedName());
    ASSERT_EQ(mappings.size(), 1u) << pool->sharedName() << " is not mapped in the restarted child (copied?)";
    EXPECT_THAT(mappings[0], HasSubstr("(deleted)"));
  }
}

// "/autogroup-N nice K" of a process, or "" where the kernel has no autogroups.
std::string autogroupOf(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/autogroup");
  std::string line;
  std::getline(file, line);
  return line;
}
std::string autogroupName(const std::string& autogroup) { return autogroup.substr(0, autogroup.find(' ')); }

// A field of /proc/PID/stat: 3 is the state, 4 the parent's pid.
std::string statField(pid_t pid, int field) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const size_t afterName = line.rfind(')');
  if (afterName == std::string::npos) return "";
  std::istringstream rest(line.substr(afterName + 2));
  std::string value;
  for (int i = 3; i <= field && rest >> value; ++i) {
  }
  return value;
}

// The command line of a process, its arguments joined by spaces.
std::string commandLineOf(pid_t pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/cmdline");
  std::string line((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::replace(line.begin(), line.end(), '\0', ' ');
  return line;
}

// The server's children whose command line has `flag` (its backend hosts, its zygote).
std::vector<pid_t> childrenWith(pid_t server, const std::string& flag) {
  std::vector<pid_t> children;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = std::stoi(name);
    if (statField(pid, 4) == std::to_string(server) && commandLineOf(pid).find(flag) != std::string::npos) {
      children.push_back(pid);
    }
  }
  return children;
}

pid_t zygoteOf(const testing::EmulatorProcess& server) {
  const auto zygotes = childrenWith(server.pid(), "--backend-zygote=3");
  EXPECT_EQ(zygotes.size(), 1u) << "the server should have one zygote";
  return zygotes.empty() ? 0 : zygotes.front();
}

// Waits (bounded) until `done()`.
template <typename Done>
bool eventually(Done done) {
  const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!done() && std::chrono::steady_clock::now() < giveUp)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return done();
}

// A host is forked from the zygote, not started afresh, yet it is the server's own child (for
// waitpid and to die with it), and ps says what it is; the zygote stays single-threaded.
TEST(BackendIsolationTest, HostsAreForkedFromASingleThreadedZygoteAsTheServersOwnChildren) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-zygote");
  testing::EmulatorProcess server(address, {std::string(kCrashing) + "error:1000000"});
  const pid_t host = static_cast<pid_t>(hostOf(address, kCrashDevice).pid());
  ASSERT_GT(host, 0);
  EXPECT_EQ(statField(host, 4), std::to_string(server.pid()));
  EXPECT_THAT(commandLineOf(host), HasSubstr("--backend-host=3"));
  const pid_t zygote = zygoteOf(server);
  ASSERT_GT(zygote, 0);
  EXPECT_EQ(testing::procStatusNumber(testing::procStatusPath(zygote), "Threads"), 1);
  // Same binary image: forked, so its executable is the zygote's, which is the server's.
  EXPECT_EQ(std::filesystem::read_symlink("/proc/" + std::to_string(host) + "/exe"),
            std::filesystem::read_symlink("/proc/" + std::to_string(server.pid()) + "/exe"));
}

TEST(BackendIsolationTest, AZygoteThatDiedIsStartedAgainForTheNextRestart) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-zygote-dies");
  testing::EmulatorProcess server(address, {std::string(kCrashing) + "error:1000000"});
  const pid_t first = static_cast<pid_t>(hostOf(address, kCrashDevice).pid());
  const pid_t zygote = zygoteOf(server);
  ASSERT_GT(first, 0);
  ASSERT_GT(zygote, 0);
  ASSERT_EQ(::kill(zygote, SIGKILL), 0);
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  const auto health = waitForHost(address, kCrashDevice, [&](const wire::BackendHostHealth& health) {
    return health.running() && health.restarts() == 1;
  });
  EXPECT_NE(static_cast<pid_t>(health.pid()), first);
  const pid_t second = zygoteOf(server);
  EXPECT_NE(second, zygote);
  Client client(address);
  auto prepared = client.prepare(kCrashDevice);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  EXPECT_TRUE(addOnce(**prepared).ok());
}

TEST(BackendIsolationTest, NoChildOutlivesTheServer) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-orphans");
  auto server = std::make_unique<testing::EmulatorProcess>(
      address, std::vector<std::string>{std::string(kCrashing) + "error:1000000"});
  const pid_t child = static_cast<pid_t>(hostOf(address, kCrashDevice).pid());
  const pid_t zygote = zygoteOf(*server);
  ASSERT_GT(child, 0);
  ASSERT_GT(zygote, 0);
  server->kill();  // SIGKILL: no chance to clean up
  // They are not ours to reap; once gone (or zombies awaiting init), their /proc stat says so.
  for (const pid_t pid : {child, zygote}) {
    auto gone = [&] {
      const std::string state = statField(pid, 3);
      return state.empty() || state == "Z";
    };
    EXPECT_TRUE(eventually(gone)) << "process " << pid << " (" << commandLineOf(pid) << ") outlived its server";
  }
}

// The unix socket `pid` listens on under /tmp/nnremote-backend-*: a backend host's private
// socket, matched by inode between its descriptors and the kernel's table of unix sockets.
std::filesystem::path privateSocketOf(pid_t pid) {
  std::set<std::string> inodes;
  std::error_code error;
  for (const auto& fd : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", error)) {
    const std::string target = std::filesystem::read_symlink(fd.path(), error).string();
    if (target.rfind("socket:[", 0) == 0) inodes.insert(target.substr(8, target.size() - 9));
  }
  std::ifstream table("/proc/" + std::to_string(pid) + "/net/unix");
  std::string line;
  std::getline(table, line);  // the header
  while (std::getline(table, line)) {
    // Num RefCount Protocol Flags Type St Inode [Path]
    std::istringstream fields(line);
    std::string skip, inode, path;
    for (int i = 0; i < 6; ++i) fields >> skip;
    fields >> inode >> path;
    if (inodes.count(inode) != 0 && path.rfind("/tmp/nnremote-backend-", 0) == 0) return path;
  }
  ADD_FAILURE() << "process " << pid << " listens on no /tmp/nnremote-backend-*/ socket";
  return {};
}

// Ctrl-C or SIGTERM stops a server with backend hosts as cleanly as one without: its threads
// (a host's supervisor among them) must not take the signal's default action.
TEST(BackendIsolationTest, AStopSignalEndsTheServerCleanlyAndRemovesItsHostsSockets) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-stop");
  testing::EmulatorProcess server(address, {std::string(kCrashing) + "error:1000000"});
  const pid_t child = static_cast<pid_t>(hostOf(address, kCrashDevice).pid());
  ASSERT_GT(child, 0);
  const std::filesystem::path socket = privateSocketOf(child);
  ASSERT_TRUE(std::filesystem::exists(socket));
  server.terminate();
  const int status = server.waitForExit(std::chrono::seconds(30));
  ASSERT_NE(status, -1) << "the server did not stop within 30 s of SIGTERM";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "wait status " << status << (WIFSIGNALED(status) ? std::string(": ") + strsignal(WTERMSIG(status)) : "");
  EXPECT_FALSE(std::filesystem::exists(socket.parent_path())) << socket.parent_path();
}

// A stop signal while the server starts ends it at once: it does not wait for a backend host
// that never serves (here, one whose library hangs while loading) until its startup timeout.
TEST(BackendIsolationTest, AStopSignalWhileStartingEndsTheServerAtOnce) {
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-stop-starting");
  auto server = testing::EmulatorProcess::starting(address, {std::string(kCrashing) + "hang:load"});
  std::vector<pid_t> hosts;
  ASSERT_TRUE(eventually([&] { return !(hosts = childrenWith(server->pid(), "--backend-host=3")).empty(); }))
      << "the server started no backend host";
  server->terminate();
  const int status = server->waitForExit(std::chrono::seconds(20));  // the startup timeout is 60 s
  ASSERT_NE(status, -1) << "the server still runs 20 s after SIGTERM";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << "wait status " << status;
  EXPECT_TRUE(eventually([&] { return statField(hosts.front(), 3).empty() || statField(hosts.front(), 3) == "Z"; }))
      << "the hung backend host outlived its server";
}

// A server that cannot clean up (SIGKILL) leaves its hosts' directories; the next one removes them.
TEST(BackendIsolationTest, TheDirectoryOfAKilledServersHostIsRemovedByTheNextServer) {
  const std::string first = testing::EmulatorProcess::uniqueAddress("isolation-killed");
  auto killed = std::make_unique<testing::EmulatorProcess>(
      first, std::vector<std::string>{std::string(kCrashing) + "error:1000000"});
  const pid_t child = static_cast<pid_t>(hostOf(first, kCrashDevice).pid());
  ASSERT_GT(child, 0);
  const std::filesystem::path left = privateSocketOf(child).parent_path();
  // Its directory stays (not asserted: a server another test starts may remove it first).
  killed->kill();
  const std::string second = testing::EmulatorProcess::uniqueAddress("isolation-next");
  testing::EmulatorProcess next(second, {std::string(kCrashing) + "error:1000000"});
  EXPECT_FALSE(std::filesystem::exists(left)) << left << " outlived its server's successor's start";
  EXPECT_TRUE(std::filesystem::exists(privateSocketOf(static_cast<pid_t>(hostOf(second, kCrashDevice).pid()))));
}

// The flags of a server of the crashing device whose restarted children are on probation for 10
// minutes (`longProbation`) or 100 ms; `name` names its config file.
std::vector<std::string> probationFlags(const std::string& name, bool longProbation) {
  return {std::string(kCrashing) + "error:1000000",
          isolationConfig(
              name, std::string("restart_backoff_ms: 10 restart_probation_ms: ") + (longProbation ? "600000" : "100"))};
}

// Kills the crashing device's child `first` and returns the pid of the child restarted after it.
pid_t killAndAwaitRestart(const std::string& address, pid_t first) {
  EXPECT_EQ(::kill(first, SIGKILL), 0);
  const auto health = waitForHost(address, kCrashDevice, [&](const wire::BackendHostHealth& health) {
    return health.running() && health.restarts() == 1;
  });
  return static_cast<pid_t>(health.pid());
}

// Each child loads its library afresh, with whatever files its argument names. One that then
// serves other devices than the server announced (a rebuilt library, a changed configuration)
// would leave clients a name that answers nothing; it is refused as a failed restart, saying so,
// and one restored in time serves again.
TEST(BackendIsolationTest, ARestartedChildServingOtherDevicesIsRefusedWithTheReason) {
  const std::string config = std::string(std::getenv("TEST_TMPDIR")) + "/changing.textproto";
  std::ifstream preset("drivers/sim/configs/edge16.textproto");
  const std::string edge16((std::istreambuf_iterator<char>(preset)), std::istreambuf_iterator<char>());
  ASSERT_NE(edge16.find("device_name: \"edge16\""), std::string::npos);
  std::ofstream(config) << edge16;
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-changed");
  testing::EmulatorProcess server(
      address, {"--backend=drivers/sim/sim_backend.so:" + config,
                isolationConfig("changed", "restart_backoff_ms: 50 crash_loop_crashes: 1000")},
      serverLog("changed"));
  const pid_t first = static_cast<pid_t>(hostOf(address, kSimDevice).pid());
  ASSERT_GT(first, 0);

  const std::string name = "device_name: \"edge16\"";
  std::string renamed = edge16;
  renamed.replace(renamed.find(name), name.size(), "device_name: \"other\"");
  std::ofstream(config) << renamed;
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  const std::string log = logOnceItHolds(serverLog("changed"), "now serves");
  EXPECT_THAT(log, HasSubstr("could not restart: --backend=drivers/sim/sim_backend.so:" + config +
                             ": the library now serves nnremote-other, not nnremote-edge16 as at startup"));
  Client client(address);
  auto prepared = client.prepare(kSimDevice);
  ASSERT_FALSE(prepared.ok()) << "a device the server announces, served by none of its children";
  EXPECT_EQ(prepared.error().code, hal::ErrorStatus::DEAD_OBJECT);
  EXPECT_THAT(prepared.error().message, HasSubstr("now serves nnremote-other"));

  std::ofstream(config) << edge16;  // restored: the next restart serves again
  const auto health = waitForHost(address, kSimDevice, [](const wire::BackendHostHealth& h) { return h.running(); });
  EXPECT_GE(health.restarts(), 1u);
  auto again = client.prepare(kSimDevice);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_TRUE(addOnce(**again).ok());
}

// A child starting up (a crash loop starts one after another) must not take CPU from other
// devices' clients. Hosts are forked in the zygote's session, an autogroup at nice 19, the
// lowest weight; a restarted one stays there until it has served for restart_probation_ms, then
// becomes a session and autogroup of its own at nice 0, as the first one is from the start.
TEST(BackendIsolationTest, ARestartedChildIsOnProbationAtTheLowestWeightThenAnAutogroupOfItsOwn) {
  if (autogroupOf(::getpid()).empty()) GTEST_SKIP() << "this kernel has no scheduler autogroups (/proc/self/autogroup)";
  for (const bool longProbation : {true, false}) {
    SCOPED_TRACE(longProbation ? "probation of 10 minutes" : "probation of 100 ms");
    const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-autogroup");
    testing::EmulatorProcess server(address, probationFlags("probation", longProbation));
    const pid_t first = static_cast<pid_t>(hostOf(address, kCrashDevice).pid());
    const pid_t zygote = zygoteOf(server);
    ASSERT_GT(first, 0);
    ASSERT_GT(zygote, 0);
    EXPECT_EQ(::getsid(first), first) << "the first start is not on probation";
    EXPECT_THAT(autogroupOf(first), ::testing::EndsWith(" nice 0"));
    EXPECT_NE(autogroupName(autogroupOf(first)), autogroupName(autogroupOf(server.pid())));
    // The zygote weighs itself at nice 19; the kernel may take a while to allow it (one change
    // per 100 ms, machine-wide, without CAP_SYS_ADMIN).
    EXPECT_TRUE(eventually([&] { return ::testing::Matches(::testing::EndsWith(" nice 19"))(autogroupOf(zygote)); }))
        << autogroupOf(zygote);

    const pid_t second = killAndAwaitRestart(address, first);
    ASSERT_NE(second, first);
    if (longProbation) {
      EXPECT_EQ(::getsid(second), zygote) << "a restarted child starts in the zygote's session";
      EXPECT_EQ(autogroupOf(second), autogroupOf(zygote));
    } else {
      EXPECT_TRUE(eventually([&] { return ::getsid(second) == second; })) << "probation never ended";
      EXPECT_THAT(autogroupOf(second), ::testing::EndsWith(" nice 0"));
      EXPECT_NE(autogroupName(autogroupOf(second)), autogroupName(autogroupOf(zygote)));
    }
  }
}

// The CPUs each thread of a process may use (Cpus_allowed_list), distinct values only.
std::set<std::string> cpuListsOfThreads(pid_t pid) {
  std::set<std::string> lists;
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
    lists.insert(testing::procStatusText(task.path() / "status", "Cpus_allowed_list"));
  }
  return lists;
}

// The threads of a process the parent has made SCHED_BATCH, and those it keeps to fewer CPUs
// than `everyCpu`, by thread id.
struct HandedOffThreads {
  std::set<int> batch, kept;
};
HandedOffThreads handedOffThreads(pid_t pid, const std::string& everyCpu) {
  HandedOffThreads threads;
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
    const int tid = std::stoi(task.path().filename().string());
    if (::sched_getscheduler(tid) == SCHED_BATCH) threads.batch.insert(tid);
    if (testing::procStatusText(task.path() / "status", "Cpus_allowed_list") != everyCpu) threads.kept.insert(tid);
  }
  return threads;
}

// How many CPUs this test may use.
int allowedCpuCount() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  EXPECT_EQ(::sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  return CPU_COUNT(&allowed);
}

// A restarted child on probation keeps to one CPU (emulator/probation_cpu.h), every thread of it,
// so its start and death do not interrupt the CPUs other devices' clients run on; when its
// probation ends, every thread may use every CPU again.
TEST(BackendIsolationTest, ARestartedChildKeepsToOneCpuOnProbation) {
  if (allowedCpuCount() < 2) GTEST_SKIP() << "this test may use only one CPU: a child on probation has no fewer";
  if (testing::kUnderThreadSanitizer) {
    GTEST_SKIP() << "ThreadSanitizer's runtime starts a thread of its own before the child can keep to one CPU";
  }
  const std::set<std::string> everyCpu = cpuListsOfThreads(::getpid());
  ASSERT_EQ(everyCpu.size(), 1u);
  for (const bool longProbation : {true, false}) {
    SCOPED_TRACE(longProbation ? "probation of 10 minutes" : "probation of 100 ms");
    const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-cpu");
    testing::EmulatorProcess server(address, probationFlags("probation-cpu", longProbation));
    const pid_t first = static_cast<pid_t>(hostOf(address, kCrashDevice).pid());
    ASSERT_GT(first, 0);
    EXPECT_EQ(cpuListsOfThreads(first), everyCpu) << "the first start is not on probation";

    const pid_t second = killAndAwaitRestart(address, first);
    ASSERT_NE(second, first);
    // It serves a client meanwhile: its gRPC threads exist, and all of them keep to the CPU.
    Client client(address);
    auto prepared = client.prepare(kCrashDevice);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    if (longProbation) {
      // And executes: after the first, executions reach the child through a burst, whose serving
      // thread the parent, handing off its CPU for each call, would move to its own CPU.
      for (int i = 0; i < 10; ++i) ASSERT_TRUE(addOnce(**prepared).ok());
      const std::set<std::string> lists = cpuListsOfThreads(second);
      ASSERT_EQ(lists.size(), 1u) << "every thread keeps to the same CPUs";
      const std::string& list = *lists.begin();
      EXPECT_EQ(list.find_first_of(",-"), std::string::npos) << "on probation: one CPU, not " << list;
    } else {
      EXPECT_TRUE(eventually([&] { return cpuListsOfThreads(second) == everyCpu; }))
          << "after probation, every thread may use every CPU again; they may use: "
          << ::testing::PrintToString(cpuListsOfThreads(second));
    }
  }
}

// Outside probation, the parent hands its CPU to the child for each burst call: it moves the
// thread serving the burst, which it checks is the child's, to the CPU the parent waits on.
TEST(BackendIsolationTest, TheParentMovesTheChildsBurstThreadToItsCpuForEachCall) {
  if (allowedCpuCount() < 2) GTEST_SKIP() << "this test may use only one CPU: no thread can be kept to fewer";
  const std::set<std::string> everyCpu = cpuListsOfThreads(::getpid());
  ASSERT_EQ(everyCpu.size(), 1u);
  const std::string address = testing::EmulatorProcess::uniqueAddress("isolation-hand-off");
  testing::EmulatorProcess server(address, probationFlags("hand-off", false));
  const pid_t child = static_cast<pid_t>(hostOf(address, kCrashDevice).pid());
  ASSERT_GT(child, 0);
  EXPECT_EQ(cpuListsOfThreads(child), everyCpu);
  Client client(address);
  auto prepared = client.prepare(kCrashDevice);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(addOnce(**prepared).ok());
  const std::set<std::string> lists = cpuListsOfThreads(child);
  EXPECT_EQ(lists.size(), 2u) << "one thread keeps to one CPU, the others to every CPU: "
                              << ::testing::PrintToString(lists);
  EXPECT_TRUE(lists.count(*everyCpu.begin()));
  for (const std::string& list : lists) {
    if (list != *everyCpu.begin()) {
      EXPECT_EQ(list.find_first_of(",-"), std::string::npos) << list;
    }
  }
  // The threads it moves are those it made wake without preempting it, and no other.
  const HandedOffThreads threads = handedOffThreads(child, *everyCpu.begin());
  EXPECT_FALSE(threads.batch.empty());
  EXPECT_EQ(threads.batch, threads.kept);
}

TEST(IsolationConfigTest, DefaultsThenEachLibraryStartingFromThem) {
  auto limits = parseServerConfig(R"(
      backend_isolation { library: "armnn_backend.so" call_cpu_ms: 900 }
      backend_isolation { health_check_timeout_ms: 700 crash_loop_crashes: 9 address_space_mib: 4096 })",
                                  "c.textproto");
  ASSERT_TRUE(limits.ok()) << limits.error().message;
  const IsolationLimits& every = limits->isolationFor("/opt/lib/npu_backend.so");
  EXPECT_EQ(every.healthCheckTimeout, std::chrono::milliseconds(700));
  EXPECT_EQ(every.crashLoopCrashes, 9u);
  EXPECT_EQ(every.addressSpaceBytes, uint64_t{4096} << 20);
  EXPECT_EQ(every.callCpu, std::chrono::milliseconds(0)) << "no limit unless set";
  EXPECT_EQ(every.healthCheckInterval, IsolationLimits().healthCheckInterval);
  const IsolationLimits& armnn = limits->isolationFor("bazel-bin/drivers/armnn/armnn_backend.so");
  EXPECT_EQ(armnn.callCpu, std::chrono::milliseconds(900));
  EXPECT_EQ(armnn.healthCheckTimeout, std::chrono::milliseconds(700)) << "from the defaults";

  EXPECT_EQ(every.restartProbation, std::chrono::milliseconds(1000));
  auto noProbation = parseServerConfig("backend_isolation { restart_probation_ms: 0 }", "c.textproto");
  ASSERT_TRUE(noProbation.ok()) << noProbation.error().message;
  EXPECT_EQ(noProbation->isolation.restartProbation, std::chrono::milliseconds(0)) << "0 is no probation";

  auto zero = parseServerConfig("backend_isolation { crash_loop_crashes: 0 }", "c.textproto");
  ASSERT_FALSE(zero.ok());
  EXPECT_THAT(zero.error().message, HasSubstr("backend_isolation[0].crash_loop_crashes = 0"));
  auto twice = parseServerConfig(R"(backend_isolation { library: "a.so" } backend_isolation { library: "a.so" })", "c");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.error().message, HasSubstr("backend_isolation[1].library 'a.so' is listed twice"));
  auto path = parseServerConfig(R"(backend_isolation { library: "/x/a.so" })", "c");
  ASSERT_FALSE(path.ok());
  EXPECT_THAT(path.error().message, HasSubstr("must be a file name"));
}

}  // namespace
}  // namespace nnremote::emulator
