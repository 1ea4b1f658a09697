// The parent side of backend isolation (docs/backends.md#isolation): one backend library in a
// child process of its own (`npu_emulator --backend-host`, backend_host.h), supervised.
//
// The supervisor notices a child that exits, is killed by a signal, stops answering health
// checks, or breaks a limit (a call running or spinning too long), and says why in one line.
// It restarts the child with backoff on the same private socket, so the proxy driver's resilient
// path reconnects and prepares models again. A crash loop (IsolationLimits::crashLoopCrashes
// within crashLoopWindow) makes the library unavailable, with the reason, until the server
// restarts.
#ifndef NNREMOTE_EMULATOR_BACKEND_PROCESS_H_
#define NNREMOTE_EMULATOR_BACKEND_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "emulator/backend_loader.h"
#include "emulator/host_channel.h"
#include "emulator/private_socket_directory.h"
#include "emulator/server_config.h"
#include "hal/compilation_cache.h"
#include "hal/result.h"
#include "middleware/device_health.h"

namespace nnremote::emulator {

struct BackendProcessOptions {
  BackendSpec spec;
  IsolationLimits limits;
  // Seals the devices' compilation caches: the parent's, so caches outlive a restarted child.
  hal::CacheSecret cacheSecret;
  // npu_emulator --fault aimed at one of the library's devices: given to the first child only.
  std::string fault;
  // The npu_emulator binary to run as the host; empty: this process's own (/proc/self/exe).
  std::string executable;
  // How long a child may take from its start to serving (loading the library included).
  std::chrono::milliseconds startupTimeout{60000};
};

class BackendProcess {
 public:
  // Starts the first child and waits until it serves; a library that cannot be served fails
  // here with the child's own error, as loading it in process would.
  static hal::Result<std::shared_ptr<BackendProcess>> start(BackendProcessOptions options);
  // Stops supervising, ends the child and removes its socket.
  ~BackendProcess();
  BackendProcess(const BackendProcess&) = delete;
  BackendProcess& operator=(const BackendProcess&) = delete;

  // The child's private socket, "unix:PATH": the same across restarts.
  const std::string& address() const { return address_; }
  // The running child's process id; 0 while none runs.
  pid_t pid() const;
  // The devices the library serves, as its first child said.
  const std::vector<HostedDevice>& devices() const { return devices_; }

  // Hands the running child a shared-memory descriptor on the host channel, returning the token
  // RegisterMemory's passed_descriptor names it by (ConnectionOptions::passDescriptor); so pools
  // reach the child without a copy, even ones whose name the client has unlinked. DEAD_OBJECT
  // while no child runs.
  hal::Result<uint64_t> passDescriptor(int descriptor);

  // Called on the supervisor's thread as soon as it has seen a child die, before restarting it.
  void onChildDeath(std::function<void()> listener);

  using Health = middleware::DeviceHealth;
  Health health() const;
  // How the child that was serving died, once the supervisor has seen it die (waiting up to a
  // second for that); "" if it still runs (ConnectionOptions::explainLoss).
  std::string explainLoss() const;
  // Why the library's devices will not come back, once given up on (ConnectionOptions::serverGoneForGood).
  std::optional<std::string> goneForGood() const;

 private:
  explicit BackendProcess(BackendProcessOptions options);

  struct Child {
    pid_t pid = 0;
    int channel = -1;
    bool onProbation = false;  // a restarted child at the lowest CPU weight, until watch ends that
  };
  // Spawns a child and waits for it to serve; on failure the child is reaped and the error says why.
  hal::Result<Child> launch(bool first);
  // Health-checks the child until it ends; returns how it ended.
  std::string watch(const Child& child);
  void supervise();
  // Sleeps up to `duration` unless stopping; false if stopping.
  bool pause(std::chrono::milliseconds duration);

  const BackendProcessOptions options_;
  std::unique_ptr<PrivateSocketDirectory> directory_;  // the child's socket's, removed last
  std::string address_;
  std::vector<HostedDevice> devices_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool stopping_ = false;
  Child child_;                 // guarded by mutex_; pid 0 while none runs
  Health health_;               // guarded by mutex_
  uint64_t descriptorTokens_ = 0;  // guarded by mutex_; the last token passDescriptor gave
  std::optional<std::chrono::steady_clock::time_point> lastDeath_;  // guarded by mutex_
  std::deque<std::chrono::steady_clock::time_point> crashes_;  // within the window
  std::function<void()> onChildDeath_;  // guarded by mutex_
  std::thread supervisor_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_BACKEND_PROCESS_H_
