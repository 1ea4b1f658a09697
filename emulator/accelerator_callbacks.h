// The Accelerator service on gRPC's callback API: the unary methods from AcceleratorService's
// RPC table (rpc_scaffold.h), and UploadBulk and DownloadBulk as reactors that move one chunk per
// callback (bulk_transfers.h). A call holds no thread while it waits for its client. Calls that
// reach a device run on the WorkPool: a device may compute for milliseconds, wait out paced time
// or be another emulator behind the proxy, and gRPC 1.51 has only a couple of callback threads,
// so blocking one would stall every client of the server.
#ifndef NNREMOTE_EMULATOR_ACCELERATOR_CALLBACKS_H_
#define NNREMOTE_EMULATOR_ACCELERATOR_CALLBACKS_H_

#include <memory>

#include "wire/nnremote.grpc.pb.h"

namespace nnremote::emulator {

class AcceleratorService;

std::unique_ptr<grpc::Service> makeAcceleratorCallbacks(AcceleratorService& service);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_ACCELERATOR_CALLBACKS_H_
