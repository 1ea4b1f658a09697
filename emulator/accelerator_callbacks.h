// The Accelerator service on gRPC's callback API, over AcceleratorService's handlers. A call
// holds no thread while it waits for its client; each gets the thread it needs:
//  - calls that touch only the server's tables (sessions, devices' descriptions, memory
//    registrations, fences, starting an execution) are answered at once on gRPC's callback
//    thread;
//  - calls that reach a device (preparing, executing, buffers, releases, closing a session) run
//    on the WorkPool: a device may compute for milliseconds, wait out paced time or be another
//    emulator behind the proxy, and gRPC 1.51 has only a couple of callback threads, so blocking
//    one would stall every client of the server. Executions whose last run was quick are the
//    exception: QuickExecutions (emulator/quick_executions.h) runs them where they arrived;
//  - UploadBulk and DownloadBulk are reactors that move one chunk per callback.
#ifndef NNREMOTE_EMULATOR_ACCELERATOR_CALLBACKS_H_
#define NNREMOTE_EMULATOR_ACCELERATOR_CALLBACKS_H_

#include <memory>

#include "proto/nnremote.grpc.pb.h"

namespace nnremote::emulator {

class AcceleratorService;

std::unique_ptr<grpc::Service> makeAcceleratorCallbacks(AcceleratorService& service);

}  // namespace nnremote::emulator

#endif  // NNREMOTE_EMULATOR_ACCELERATOR_CALLBACKS_H_
