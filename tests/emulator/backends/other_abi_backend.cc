// A library that claims the next backend ABI version: the server must refuse it before any C++
// object crosses (its create function must never be called).
#include <cstdlib>

#include "hal/backend_abi.h"

extern "C" __attribute__((visibility("default"))) nnremote::hal::BackendAbiStamp nnremote_backend_abi_stamp() {
  auto stamp = nnremote::hal::currentBackendAbiStamp();
  stamp.abiVersion += 1;
  return stamp;
}

extern "C" __attribute__((visibility("default"))) int nnremote_backend_create_devices(
    const nnremote::hal::BackendArguments*, std::vector<nnremote::hal::BackendDevice>*, std::string*) {
  std::abort();
}
