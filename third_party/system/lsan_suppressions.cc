// LeakSanitizer's suppressions, built into every test binary and every binary a test starts of a
// --config=asan build (empty otherwise).
//
// libcrypto (OpenSSL 3, not built with frame pointers, so LSan's stacks stop at its allocator)
// sometimes reports a few KiB leaked at exit after TLS tests: allocations that gRPC's TLS
// handshakers own while a handshake the test refused is still being torn down on a gRPC thread
// when the process exits. Seen once in many runs of tests/emulator:security_test, never in our
// own libcrypto use (the HMAC in hal:compilation_cache frees within the call), so a libcrypto
// allocation reported at exit is not ours.
//
// GCC says it builds for AddressSanitizer with __SANITIZE_ADDRESS__, clang 14 (which --config=asan
// uses) only through __has_feature: testing the macro alone left this out of every asan binary.
#ifndef __has_feature
#define __has_feature(feature) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
extern "C" const char* __lsan_default_suppressions() { return "leak:CRYPTO_zalloc\n"; }
#endif
