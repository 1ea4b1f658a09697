#include "emulator/accelerator_service.h"

#include "emulator/fence_rpcs.h"

namespace nnremote::emulator {

AcceleratorService::AcceleratorService(std::vector<hal::SharedDevice> devices, SessionLimits sessionLimits,
                                       ClientAccess clientAccess, std::unique_ptr<Authenticator> authenticator)
    : devices_(std::move(devices), std::move(clientAccess)),
      sessions_(sessionLimits),
      authenticator_(std::move(authenticator)) {
  session_.addTo(rpcs_);
  models_.addTo(rpcs_);
  executions_.addTo(rpcs_);
  memory_.addTo(rpcs_);
  buffers_.addTo(rpcs_);
  addFenceRpcs(rpcs_);
}

}  // namespace nnremote::emulator
