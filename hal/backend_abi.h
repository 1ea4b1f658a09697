// The entry points of a backend library: a shared object that npu_emulator loads with
// --backend=PATH.so[:ARG] and whose hal::IDevices it serves (docs/backends.md).
//
// The ABI is C++: hal types cross it as they are. So a backend must be built against the hal/
// headers of the same kBackendAbiVersion, by a compiler using the same C++ standard library
// (libstdc++ with the C++11 string ABI; GCC or Clang on Linux), linked to libstdc++ dynamically.
// Before any C++ object crosses, the server reads the backend's BackendAbiStamp through a plain C
// function and refuses a library whose version or type layouts differ from its own.
//
// A backend defines one factory and names it with NNREMOTE_DEFINE_BACKEND:
//
//   hal::Result<std::vector<hal::BackendDevice>> createDevices(const hal::BackendArguments&);
//   NNREMOTE_DEFINE_BACKEND(createDevices)
//
// The macro exports the two entry points and turns any exception the factory throws into an
// error, so nothing unwinds into the server.
#ifndef NNREMOTE_HAL_BACKEND_ABI_H_
#define NNREMOTE_HAL_BACKEND_ABI_H_

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "hal/compilation_cache.h"
#include "hal/i_device.h"
#include "hal/result.h"

namespace nnremote::hal {

// Raise when anything the entry points or the hal types they carry changes incompatibly.
inline constexpr uint32_t kBackendAbiVersion = 1;

// What the server gives a backend.
struct BackendArguments {
  // ARG of --backend=PATH.so:ARG; empty without one. Its meaning is the backend's.
  std::string argument;
  // Seals compilation caches; the server's --state-dir keeps it across restarts.
  CacheSecret cacheSecret;
};

// One device a backend serves. The server puts each behind its own scheduler (priorities,
// deadlines, queueing); these say how to schedule it.
// The most engines a device may have. The scheduler plans each engine's lane on every change, so
// a count from an uninitialized field (or a corrupt backend host's report) must not reach it.
constexpr uint32_t kMaxEngines = 256;

struct BackendDevice {
  SharedDevice device;
  // How many independent engines execute at once (the scheduler's timeline lanes): 1 to
  // kMaxEngines.
  uint32_t engines = 1;
  // The device time a preparation takes; unset: the host time the device took to prepare.
  std::function<Duration(const Model&)> preparationTime;
};

// What server and backend must agree on before C++ objects cross: the ABI version, the
// standard library's string ABI, and the sizes of the types that cross, which catch headers
// that changed without a version bump.
struct BackendAbiStamp {
  uint32_t abiVersion;
  uint32_t cxx11StringAbi;
  uint32_t gccMajor;  // for messages only: libstdc++'s own symbol versions guard the rest
  uint32_t sizeofModel;
  uint32_t sizeofRequest;
  uint32_t sizeofCapabilities;
  uint32_t sizeofBackendDevice;
  uint32_t sizeofBackendArguments;
};

inline BackendAbiStamp currentBackendAbiStamp() {
  return {kBackendAbiVersion,
#if defined(_GLIBCXX_USE_CXX11_ABI) && _GLIBCXX_USE_CXX11_ABI
          1,
#else
          0,
#endif
#if defined(__GNUC__)
          static_cast<uint32_t>(__GNUC__),
#else
          0,
#endif
          sizeof(Model),
          sizeof(Request),
          sizeof(Capabilities),
          sizeof(BackendDevice),
          sizeof(BackendArguments)};
}

// The entry points' names and types, as the server looks them up with dlsym.
inline constexpr const char* kBackendAbiStampSymbol = "nnremote_backend_abi_stamp";
inline constexpr const char* kBackendCreateDevicesSymbol = "nnremote_backend_create_devices";
using BackendAbiStampFunction = BackendAbiStamp (*)();
// Returns 0 and fills `devices`, or returns nonzero and fills `error`.
using BackendCreateDevicesFunction = int (*)(const BackendArguments* arguments, std::vector<BackendDevice>* devices,
                                             std::string* error);

using BackendFactory = Result<std::vector<BackendDevice>> (*)(const BackendArguments&);

namespace internal {

inline int callBackendFactory(BackendFactory factory, const BackendArguments& arguments,
                              std::vector<BackendDevice>* devices, std::string* error) {
  try {
    auto created = factory(arguments);
    if (!created.ok()) {
      *error = created.error().message;
      return 1;
    }
    *devices = std::move(created).value();
    return 0;
  } catch (const std::exception& exception) {
    *error = std::string("threw an exception: ") + exception.what();
  } catch (...) {
    *error = "threw an exception that is not a std::exception";
  }
  return 1;
}

}  // namespace internal
}  // namespace nnremote::hal

#define NNREMOTE_DEFINE_BACKEND(factory)                                                                      \
  extern "C" __attribute__((visibility("default"))) ::nnremote::hal::BackendAbiStamp                         \
  nnremote_backend_abi_stamp() {                                                                              \
    return ::nnremote::hal::currentBackendAbiStamp();                                                         \
  }                                                                                                           \
  extern "C" __attribute__((visibility("default"))) int nnremote_backend_create_devices(                     \
      const ::nnremote::hal::BackendArguments* arguments, std::vector<::nnremote::hal::BackendDevice>* devices, \
      std::string* error) {                                                                                   \
    return ::nnremote::hal::internal::callBackendFactory(factory, *arguments, devices, error);                \
  }

#endif  // NNREMOTE_HAL_BACKEND_ABI_H_
