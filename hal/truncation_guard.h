// Shared memory that its owner shrinks while we have it mapped. A server maps what clients
// register (and a backend host what its parent hands over); any of them can ftruncate the object
// behind it at any time, and an access past the object's new end then raises SIGBUS, whose default
// action ends the server for every client. POSIX shared memory cannot be sealed against shrinking
// (only memfds can, and only by their creator), so the access itself has to survive, as Wayland
// compositors do for their clients' buffers.
//
// Every shared-memory mapping hal/memory.cc makes is registered here. A serving process arms the
// guard once; from then on, SIGBUS at an address inside a registered mapping replaces the whole
// mapping with private zero pages (the access is retried and completes) and marks it truncated.
// The mapping no longer reaches the object: whatever used it must be refused (Memory::truncated).
// A full /dev/shm raises the same SIGBUS when a hole in an object is first written (a client's
// object: those hal creates have their pages allocated up front), and is met the same way. A SIGBUS anywhere else goes to the handler that was in place when the guard was
// armed.
#ifndef NNREMOTE_HAL_TRUNCATION_GUARD_H_
#define NNREMOTE_HAL_TRUNCATION_GUARD_H_

#include <cstddef>

namespace nnremote::hal {

// Installs the SIGBUS handler, once per process; later calls do nothing. Call it after any
// handler it should pass other faults to (crash reports, a sanitizer's).
void armTruncationGuard();

// One mapping's registration, from construction to destruction: destroy it before unmapping.
class GuardedMapping {
 public:
  GuardedMapping(void* begin, size_t length);
  ~GuardedMapping();
  GuardedMapping(const GuardedMapping&) = delete;
  GuardedMapping& operator=(const GuardedMapping&) = delete;

  // Whether an access found the object shrunk (the guard armed): the mapping now holds zeros and
  // writes to it reach no one.
  bool truncated() const;

  struct Slot;  // its place in the table the signal handler reads (truncation_guard.cc)

 private:
  Slot* slot_;
};

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_TRUNCATION_GUARD_H_
