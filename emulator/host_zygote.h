// The server's side of the zygote that backend hosts are forked from (the zygote's own side:
// zygote.h). Backend hosts are forked, not started afresh (docs/backends.md#isolation).
//
// Starting npu_emulator costs some 40 ms of CPU, mostly the kernel mapping its ~75 libraries and
// the dynamic loader binding their symbols, and a crash loop pays it for every restart, on cores
// that other devices' clients are using. So one process per server, `npu_emulator
// --backend-zygote=3`, is started with every symbol bound (LD_BIND_NOW) and stays
// single-threaded, which makes forking it safe. A host forked from it starts from a process
// image already loaded: it only loads its library and starts its server.
//
// A host must still be the server's own child: the supervisor waits for it (waitpid) and it dies
// with the server (PR_SET_PDEATHSIG). So the zygote forks a short-lived intermediate that forks
// the host and exits, and the server is a child subreaper while a spawn is under way: the
// orphaned host is reparented to the server, not to init. Where this process cannot be a
// subreaper (qemu-user refuses PR_SET_CHILD_SUBREAPER), spawn() starts the host afresh instead.
//
// The zygote is a session of its own, hence a scheduler autogroup, which it weighs at nice 19, the
// lowest weight. A host stays in that session while it starts, and a restarted one until it has
// served for restart_probation_ms: so a library that crashes again and again takes CPU only when
// the other devices' work leaves some. Then the host becomes a session and autogroup of its own,
// at nice 0, as much as the whole server weighs. The zygote's own change is the only autogroup
// change this takes (the kernel allows one per 100 ms, machine-wide, without CAP_SYS_ADMIN).
#ifndef NNREMOTE_EMULATOR_HOST_ZYGOTE_H_
#define NNREMOTE_EMULATOR_HOST_ZYGOTE_H_

#include <sys/types.h>

#include <string>

#include "emulator/host_channel.h"
#include "hal/result.h"

namespace nnremote::emulator {

class HostZygote {
 public:
  // The zygote of `executable` (an npu_emulator binary), shared by every backend of this process
  // that runs it; started on first use, and again if it died.
  static HostZygote& of(const std::string& executable);

  // Forks a backend host, a session of its own whose fd 3 is (a copy of) `channel`, and returns
  // its pid: a child of this process.
  hal::Result<pid_t> spawn(int channel);

  HostZygote(const HostZygote&) = delete;
  HostZygote& operator=(const HostZygote&) = delete;

 private:
  explicit HostZygote(std::string executable) : executable_(std::move(executable)) {}
  hal::Status start();
  hal::Result<pid_t> ask(int channel);
  void stop();

  const std::string executable_;
  pid_t pid_ = 0;  // guarded by the spawning mutex (host_zygote.cc); 0 while none runs
  int channel_ = -1;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_HOST_ZYGOTE_H_
