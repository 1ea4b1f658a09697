// The real npu_emulator binary in a child process, for tests that crash, kill and restart
// servers. The test target lists "//emulator:npu_emulator" in its data, so the binary is at
// emulator/npu_emulator in its runfiles (the working directory of a bazel test).
#ifndef NNREMOTE_TESTING_EMULATOR_PROCESS_H_
#define NNREMOTE_TESTING_EMULATOR_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace nnremote::testing {

class EmulatorProcess {
 public:
  // Starts `npu_emulator --listen=ADDRESS --config=edge16 EXTRA...` (without --config=edge16 if
  // EXTRA names devices with --config or --backend) and waits (bounded) until it accepts
  // connections. ADDRESS is unix:PATH, or IPV4:PORT with a TCP flag in EXTRA (--insecure). With `stderrFile`, what it
  // writes to stderr (its log, its backend hosts' crash reports) goes to that file instead of the test's own stderr.
  explicit EmulatorProcess(const std::string& address, const std::vector<std::string>& extraFlags = {},
                           const std::string& stderrFile = "");
  // Starts it without waiting until it listens: for tests of a server that may never get there.
  static std::unique_ptr<EmulatorProcess> starting(const std::string& address,
                                                   const std::vector<std::string>& extraFlags);
  // Kills it (SIGKILL) if it still runs. Once it has ended, its socket file is removed.
  ~EmulatorProcess();

  void kill();
  // Asks it to stop cleanly (SIGTERM), as Ctrl-C would.
  void terminate();
  // Waits (bounded) for the process to end: its wait status, or -1 if it did not end in time.
  int waitForExit(std::chrono::milliseconds within);

  pid_t pid() const { return pid_; }

  // A unix socket address of this test process's own under /tmp (TEST_TMPDIR is too long).
  static std::string uniqueAddress(const std::string& name);

 private:
  EmulatorProcess(const std::string& address, const std::vector<std::string>& extraFlags, const std::string& stderrFile,
                  bool awaitListening);
  // Marks it ended and removes its socket file if it left it.
  void ended();

  pid_t pid_ = -1;
  bool exited_ = false;
  std::string socketPath_;  // a unix socket's
  ino_t socketInode_ = 0;   // its socket file's, once it listens
};

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTING_EMULATOR_PROCESS_H_
