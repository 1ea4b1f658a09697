// Sync-fence file descriptors on a Linux host. Android's sync fences are sync_file descriptors of
// the kernel's dma-buf fences, which a Linux host has no general way to make; nnremote defines
// its own, with the same promise (docs/runtime.md):
//
//   A sync-fence fd is a file descriptor that becomes readable (poll() reports POLLIN) when the
//   fence signals. If it is a socket, the first byte it holds says how: 0 for success, anything
//   else for an error; a socket whose peer closed without writing is an error. Any other readable
//   descriptor (an eventfd, a pipe) counts as success.
//
// The fds this library hands out are one end of a Unix socket pair; a program that makes its own
// fence does the same (socketpair, then write one byte to the other end), or uses an eventfd.
// Readers peek (MSG_PEEK), so every holder of a copy of the fd sees the same state.
#ifndef NNREMOTE_RUNTIME_SYNC_FENCE_FD_H_
#define NNREMOTE_RUNTIME_SYNC_FENCE_FD_H_

#include <memory>

#include "hal/result.h"
#include "hal/sync_fence.h"

namespace nnremote::runtime {

// A new fd that becomes readable when `fence` signals; the caller owns it.
hal::Result<int> exportSyncFence(const hal::SyncFence& fence);

// A fence that signals when the fd (duplicated: the caller keeps its own) becomes readable.
// Dropping the ImportedFence stops watching, and a fence not signaled by then signals an error.
class ImportedFence {
 public:
  static hal::Result<std::unique_ptr<ImportedFence>> watch(int fd);
  ~ImportedFence();
  const hal::SyncFence& fence() const { return fence_; }

 private:
  struct Cancel;  // an eventfd that stops the watcher, closed by whichever of the two ends last
  ImportedFence(hal::SyncFence fence, std::shared_ptr<Cancel> cancel)
      : fence_(std::move(fence)), cancel_(std::move(cancel)) {}
  const hal::SyncFence fence_;
  const std::shared_ptr<Cancel> cancel_;
};

}  // namespace nnremote::runtime

#endif  // NNREMOTE_RUNTIME_SYNC_FENCE_FD_H_
