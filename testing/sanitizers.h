// Whether this binary, and so the npu_emulator a test starts from the same build, runs under
// --config=asan (AddressSanitizer + UBSan) or --config=tsan (ThreadSanitizer): some limits a test
// sets on a process are limits on the sanitizers' runtimes too.
#ifndef NNREMOTE_TESTING_SANITIZERS_H_
#define NNREMOTE_TESTING_SANITIZERS_H_

namespace nnremote::testing {

// GCC says it builds for AddressSanitizer with __SANITIZE_ADDRESS__, clang 14 (which
// --config=asan uses) only through __has_feature.
// --config=tsan compiles our code with NNREMOTE_TSAN and without __SANITIZE_THREAD__ (.bazelrc).
#ifdef NNREMOTE_TSAN
inline constexpr bool kUnderThreadSanitizer = true;
#else
inline constexpr bool kUnderThreadSanitizer = false;
#endif

#if defined(__SANITIZE_ADDRESS__) || defined(NNREMOTE_TSAN)
inline constexpr bool kUnderSanitizers = true;
#elif defined(__has_feature)
inline constexpr bool kUnderSanitizers = __has_feature(address_sanitizer);
#else
inline constexpr bool kUnderSanitizers = false;
#endif

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTING_SANITIZERS_H_
