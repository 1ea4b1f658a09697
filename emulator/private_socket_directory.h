// A directory of this process's own under /tmp for a backend host's unix socket: only its user
// may enter it, so only the server (and its user) can reach the unguarded child behind it.
//
// Each is removed by its destructor; a server that never runs it (SIGKILL, the OOM killer, a
// crash) leaves its directory behind, so the next server removes those. What tells a left
// directory from a live one is a lock its owner holds on its owner.lock file: the kernel lets go
// of it however the owner ends, and it works across PID namespaces, where a pid would not.
#ifndef NNREMOTE_EMULATOR_PRIVATE_SOCKET_DIRECTORY_H_
#define NNREMOTE_EMULATOR_PRIVATE_SOCKET_DIRECTORY_H_

#include <memory>
#include <string>
#include <utility>

#include "hal/result.h"

namespace nnremote::emulator {

class PrivateSocketDirectory {
 public:
  // Removes the directories whose owners are gone (once a process), then makes a new one.
  static hal::Result<std::unique_ptr<PrivateSocketDirectory>> create();
  // Removes the directory and its socket.
  ~PrivateSocketDirectory();
  PrivateSocketDirectory(const PrivateSocketDirectory&) = delete;
  PrivateSocketDirectory& operator=(const PrivateSocketDirectory&) = delete;

  const std::string& path() const { return path_; }
  // Where the child listens: short, as unix socket paths are limited to 107 bytes.
  std::string socketPath() const { return path_ + "/backend.sock"; }

  // Removes every directory of ours under /tmp whose owner is gone; returns how many.
  static int removeAbandoned();

 private:
  PrivateSocketDirectory(std::string path, int lock) : path_(std::move(path)), lock_(lock) {}

  const std::string path_;
  const int lock_;  // open, and locked, for this object's life
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_PRIVATE_SOCKET_DIRECTORY_H_
