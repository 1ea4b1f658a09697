// The Accelerator RPCs of models: GetSupportedOperations, PrepareModel, PrepareModelFromCache and
// ReleasePreparedModel. A model is decoded and validated (hal::validateModel, the extension
// allowlist, the device's feature level) before a device sees it; the server keeps it, so that
// requests are validated against it later.
#ifndef NNREMOTE_EMULATOR_MODEL_RPCS_H_
#define NNREMOTE_EMULATOR_MODEL_RPCS_H_

#include "emulator/rpc_scaffold.h"
#include "emulator/served_devices.h"
#include "wire/nnremote.pb.h"

namespace nnremote::emulator {

class ModelRpcs {
 public:
  explicit ModelRpcs(const ServedDevices& devices) : devices_(devices) {}

  void addTo(RpcTable& table);

  hal::Result<wire::GetSupportedOperationsResponse> getSupportedOperations(
      Session& session, const wire::GetSupportedOperationsRequest& request);
  hal::Result<wire::PrepareModelResponse> prepareModel(Session& session, const wire::PrepareModelRequest& request);
  hal::Result<wire::PrepareModelResponse> prepareModelFromCache(Session& session,
                                                                const wire::PrepareModelFromCacheRequest& request);
  hal::Result<wire::Empty> releasePreparedModel(Session& session, const wire::ReleasePreparedModelRequest& request);

 private:
  // The device and the model, decoded and validated: where GetSupportedOperations and
  // PrepareModel both start.
  struct ResolvedModel {
    hal::SharedDevice device;
    hal::Model model;
  };
  hal::Result<ResolvedModel> resolveModel(Session& session, const std::string& deviceName,
                                          const wire::Model& wireModel) const;

  const ServedDevices& devices_;
};

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_MODEL_RPCS_H_
