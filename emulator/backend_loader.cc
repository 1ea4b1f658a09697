#include "emulator/backend_loader.h"

#include <dlfcn.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
#include <sstream>

#include "middleware/backend_guard.h"

namespace nnremote::emulator {
namespace {

hal::ErrorBuilder loadError(const BackendSpec& spec) { return std::move(hal::invalidArgument() << spec.label << ": "); }

// Names the first field on which the two stamps differ, or returns empty.
std::string stampMismatch(const hal::BackendAbiStamp& server, const hal::BackendAbiStamp& library) {
  std::ostringstream out;
  if (library.abiVersion != server.abiVersion) {
    out << "it was built for backend ABI version " << library.abiVersion << ", and this server speaks version "
        << server.abiVersion << "; rebuild it against this nnremote's hal/ headers";
  } else if (library.cxx11StringAbi != server.cxx11StringAbi) {
    out << "it was built with _GLIBCXX_USE_CXX11_ABI=" << library.cxx11StringAbi << ", and this server with "
        << server.cxx11StringAbi;
  } else {
    const std::pair<const char*, std::pair<uint32_t, uint32_t>> sizes[] = {
        {"hal::Model", {server.sizeofModel, library.sizeofModel}},
        {"hal::Request", {server.sizeofRequest, library.sizeofRequest}},
        {"hal::Capabilities", {server.sizeofCapabilities, library.sizeofCapabilities}},
        {"hal::BackendDevice", {server.sizeofBackendDevice, library.sizeofBackendDevice}},
        {"hal::BackendArguments", {server.sizeofBackendArguments, library.sizeofBackendArguments}},
    };
    for (const auto& [type, size] : sizes) {
      if (size.first == size.second) continue;
      out << "its " << type << " is " << size.second << " bytes and this server's is " << size.first
          << ": the hal/ headers differ (same ABI version, so the version was not raised)";
      break;
    }
  }
  if (out.tellp() > 0 && library.gccMajor != server.gccMajor) {
    out << " (library built by GCC " << library.gccMajor << ", server by " << server.gccMajor << ")";
  }
  return out.str();
}

}  // namespace

hal::Result<BackendSpec> parseBackendSpec(const std::string& text) {
  // The path ends at its ".so" or ".so.N..." suffix; a ':' after it starts the argument.
  static const std::regex kSpec(R"(^([^:]*\.so(\.[0-9]+)*)(:(.*))?$)");
  std::smatch match;
  if (!std::regex_match(text, match, kSpec)) {
    return hal::invalidArgument() << "--backend=" << text << ": expected PATH.so[:ARG], a shared library's path";
  }
  return BackendSpec{match[1].str(), match[4].str(), "--backend=" + text};
}

hal::Result<std::vector<hal::BackendDevice>> loadBackend(const BackendSpec& spec, const hal::CacheSecret& cacheSecret) {
  // RTLD_LOCAL: the library's symbols stay its own, so two backends cannot collide. The handle
  // is never closed: the devices' code lives in the library for the life of the process.
  void* library = ::dlopen(spec.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) return loadError(spec) << "cannot load it: " << ::dlerror();
  auto* stamp = reinterpret_cast<hal::BackendAbiStampFunction>(::dlsym(library, hal::kBackendAbiStampSymbol));
  auto* create =
      reinterpret_cast<hal::BackendCreateDevicesFunction>(::dlsym(library, hal::kBackendCreateDevicesSymbol));
  if (stamp == nullptr || create == nullptr) {
    return loadError(spec) << "not an nnremote backend: it does not export "
                           << (stamp == nullptr ? hal::kBackendAbiStampSymbol : hal::kBackendCreateDevicesSymbol)
                           << " (define it with NNREMOTE_DEFINE_BACKEND from hal/backend_abi.h)";
  }
  if (const std::string mismatch = stampMismatch(hal::currentBackendAbiStamp(), stamp()); !mismatch.empty()) {
    return loadError(spec) << mismatch;
  }
  const hal::BackendArguments arguments{spec.argument, cacheSecret};
  std::vector<hal::BackendDevice> devices;
  std::string error;
  if (create(&arguments, &devices, &error) != 0) {
    return loadError(spec) << error;
  }
  if (devices.empty()) return loadError(spec) << "the backend serves no devices";
  const std::string libraryName = spec.path.substr(spec.path.find_last_of('/') + 1);
  for (auto& device : devices) {
    if (device.device == nullptr) return loadError(spec) << "the backend returned a null device";
    if (device.engines == 0 || device.engines > hal::kMaxEngines) {
      return loadError(spec) << device.device->getName() << " has " << device.engines << " engines (1 to "
                             << hal::kMaxEngines << ")";
    }
    if (const auto [model, data] = device.device->getNumberOfCacheFilesNeeded();
        model > hal::kMaxNumberOfCacheFiles || data > hal::kMaxNumberOfCacheFiles) {
      return loadError(spec) << device.device->getName() << " needs " << model << " model and " << data
                             << " data cache files (at most " << hal::kMaxNumberOfCacheFiles << " of each)";
    }
    device.device = middleware::guardBackendDevice(std::move(device.device), libraryName);
  }
  return devices;
}

hal::Result<std::string> bundledSimulatorBackend() {
  if (const char* path = std::getenv("NNREMOTE_SIM_BACKEND"); path != nullptr && *path != '\0') return std::string(path);
  std::error_code error;
  const std::filesystem::path binary = std::filesystem::canonical("/proc/self/exe", error);
  if (error) return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE) << "cannot find this binary: " << error.message();
  const std::filesystem::path candidates[] = {binary.parent_path().parent_path() / "drivers" / "sim" / "sim_backend.so",
                                              binary.parent_path() / "sim_backend.so"};
  for (const auto& candidate : candidates) {
    if (std::filesystem::exists(candidate, error)) return candidate.string();
  }
  return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
         << "the simulator's backend library is not at " << candidates[0].string() << " or " << candidates[1].string()
         << " (build //drivers/sim:sim_backend.so, or set NNREMOTE_SIM_BACKEND)";
}

}  // namespace nnremote::emulator
