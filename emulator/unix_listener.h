// A unix-socket listener that the emulator runs itself instead of letting gRPC bind the path,
// for two things gRPC does not offer: the socket file's mode is set before anyone can connect
// (0600, or 0660 with a group), and each connection's uid is read with SO_PEERCRED. Accepted
// connections are handed to the gRPC server, which names their calls' peer "fd:N".
#ifndef NNREMOTE_EMULATOR_UNIX_LISTENER_H_
#define NNREMOTE_EMULATOR_UNIX_LISTENER_H_

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "emulator/caller_identity.h"
#include "hal/result.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace nnremote::emulator {

class UnixListener {
 public:
  // Binds `address` ("unix:PATH" or "unix-abstract:NAME"). A path is created with mode 0600, or
  // 0660 owned by `group` when given; an abstract name has no file and so no mode. Connections
  // are refused until accept() starts. A path is locked (PATH.lock, removed with the listener)
  // for as long as the listener lives, so a second server starting on it is refused even before
  // the first listens, rather than taking its socket file for a stale one.
  static hal::Result<std::unique_ptr<UnixListener>> bind(const std::string& address, std::optional<gid_t> group);
  ~UnixListener();

  // Accepts connections on a thread of its own and serves each with `server`, recording its
  // uid in `peers`. Both must outlive stop(). A connection is handed to the server once the
  // client speaks (a gRPC client does at once); one still silent after `speakWithin` is closed,
  // as gRPC's handshake timeout does on its own TCP listeners.
  hal::Status accept(grpc::Server* server, UnixPeers* peers, std::chrono::milliseconds speakWithin);
  // Stops accepting; connections already handed over stay with the server.
  void stop();

 private:
  UnixListener() = default;
  void acceptLoop(grpc::Server* server, UnixPeers* peers, std::chrono::milliseconds speakWithin);

  int socket_ = -1;
  int lock_ = -1;             // held on PATH.lock while the listener lives (a path's only)
  int wakeup_[2] = {-1, -1};  // a pipe: writing to it ends acceptLoop
  int events_ = -1;           // acceptLoop's epoll set
  std::string path_;          // empty for an abstract name
  ino_t inode_ = 0;           // the socket file this listener made
  std::thread thread_;
};

// The numeric gid of a group name (or of a number), for --socket-group.
hal::Result<gid_t> groupId(const std::string& group);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_UNIX_LISTENER_H_
