// armnn_backend.so: Arm NN as a backend library, for
// npu_emulator --backend=armnn_backend.so[:BACKENDS]. BACKENDS is a comma-separated list of Arm NN
// backend ids in order of preference (CpuRef, CpuAcc, GpuAcc, EthosN, ...); without it, every
// one of CpuAcc, GpuAcc and CpuRef that this machine has. Arm NN finds its backends in
// $ARMNN_DYNAMIC_BACKEND_PATH, or where Debian installs them.
#include <armnn/ArmNN.hpp>
#include <armnn/Version.hpp>

#include <cstdlib>
#include <set>
#include <sstream>

#include "drivers/armnn/armnn_device.h"
#include "hal/backend_abi.h"

namespace nnremote::armnn {
namespace {

#define NNREMOTE_STRINGIFY_INNER(x) #x
#define NNREMOTE_STRINGIFY(x) NNREMOTE_STRINGIFY_INNER(x)
#if defined(__aarch64__)
constexpr const char* kDebianBackendPath = "/usr/lib/aarch64-linux-gnu/armnn" NNREMOTE_STRINGIFY(ARMNN_MAJOR_VERSION);
#else
constexpr const char* kDebianBackendPath = "/usr/lib/x86_64-linux-gnu/armnn" NNREMOTE_STRINGIFY(ARMNN_MAJOR_VERSION);
#endif

hal::Result<std::vector<hal::BackendDevice>> createArmnnDevices(const hal::BackendArguments& arguments) {
  ::armnn::IRuntime::CreationOptions options;
  const char* path = std::getenv("ARMNN_DYNAMIC_BACKEND_PATH");
  options.m_DynamicBackendsPath = path != nullptr && *path != '\0' ? path : kDebianBackendPath;
  std::shared_ptr<::armnn::IRuntime> runtime(::armnn::IRuntime::CreateRaw(options), &::armnn::IRuntime::Destroy);
  const auto available = runtime->GetDeviceSpec().GetSupportedBackends();
  std::string availableList;
  for (const auto& backend : available) availableList += (availableList.empty() ? "" : ", ") + backend.Get();

  std::vector<::armnn::BackendId> backends;
  if (arguments.argument.empty()) {
    for (const char* preferred : {"CpuAcc", "GpuAcc", "CpuRef"}) {
      if (available.count(preferred) != 0) backends.emplace_back(preferred);
    }
  } else {
    std::stringstream list(arguments.argument);
    for (std::string id; std::getline(list, id, ',');) {
      if (available.count(id) == 0) {
        return hal::invalidArgument() << "Arm NN backend '" << id << "' is not available here (available: "
                                      << (availableList.empty() ? "none" : availableList) << "; Arm NN looked in "
                                      << options.m_DynamicBackendsPath << ", set ARMNN_DYNAMIC_BACKEND_PATH)";
      }
      backends.emplace_back(id);
    }
  }
  if (backends.empty()) {
    return hal::invalidArgument() << "no Arm NN backend is available (looked in " << options.m_DynamicBackendsPath
                                  << "; install libarmnn-cpuref-backend" NNREMOTE_STRINGIFY(ARMNN_MAJOR_VERSION)
                                  << " or set ARMNN_DYNAMIC_BACKEND_PATH)";
  }
  hal::BackendDevice device;
  device.device = std::make_shared<ArmnnDevice>(std::move(runtime), std::move(backends));
  return std::vector<hal::BackendDevice>{std::move(device)};
}

}  // namespace
}  // namespace nnremote::armnn

NNREMOTE_DEFINE_BACKEND(nnremote::armnn::createArmnnDevices)
