// gRPC passes our reactors between its threads through synchronization inside libgrpc, which
// Debian builds without ThreadSanitizer instrumentation. Under --config=tsan (NNREMOTE_TSAN)
// these mark that ordering where TSan can see it; otherwise they are nothing.
#ifndef NNREMOTE_EMULATOR_GRPC_HANDOFF_H_
#define NNREMOTE_EMULATOR_GRPC_HANDOFF_H_

#ifdef NNREMOTE_TSAN
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

namespace nnremote::emulator {

// Everything this thread did to `object` happens before what a later takeBackFromGrpc sees.
inline void handOffToGrpc(const void* object) {
#ifdef NNREMOTE_TSAN
  __tsan_release(const_cast<void*>(object));
#else
  (void)object;
#endif
}

inline void takeBackFromGrpc(const void* object) {
#ifdef NNREMOTE_TSAN
  __tsan_acquire(const_cast<void*>(object));
#else
  (void)object;
#endif
}

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_GRPC_HANDOFF_H_
