// Runs a validated model's main subgraph on a request, operation by operation, and estimates
// the cycles the NPU would take.
#ifndef NNREMOTE_ACCELERATOR_SIM_GRAPH_EXECUTOR_H_
#define NNREMOTE_ACCELERATOR_SIM_GRAPH_EXECUTOR_H_

#include <vector>

#include "accelerator_sim/npu_config.h"
#include "accelerator_sim/operation_context.h"
#include "accelerator_sim/timing/operation_timing.h"
#include "hal/execution_profile.h"
#include "hal/types.h"

namespace nnremote::sim {

// Tensors for every operand of `subgraph` with constant data attached and nothing else: what
// kernels see when validating. Points into `model`, which must outlive the result.
std::vector<Tensor> staticTensors(const hal::Model& model, const hal::Model::Subgraph& subgraph);

// Checks every operation of the main subgraph with its kernel; one entry per operation, ok
// where the simulator can run it.
std::vector<Status> checkOperations(const hal::Model& model);

struct ExecutionReport {
  std::vector<hal::OutputShape> outputShapes;
  hal::ExecutionProfile profile;  // per operation, as the configured NPU would take it
  // Host time spent inside kernels: the simulation itself, as opposed to driver work.
  uint64_t kernelNanoseconds = 0;
  // Host time spent pricing operations with the timing model.
  uint64_t timingModelNanoseconds = 0;
};

// Executes `model` (validated, every operation supported) on `request` (validated against
// it). Writes outputs into the request's pools. If an output does not fit, returns
// OUTPUT_INSUFFICIENT_SIZE with the needed shapes and writes nothing. With `withTiming`, prices
// every operation on `npu`. `states`, if given, holds one OperationState per operation of the
// main subgraph, kept by the caller across executions of `model`.
hal::Result<ExecutionReport> executeGraph(const hal::Model& model, const hal::Request& request,
                                          const NpuConfig& npu, bool withTiming,
                                          OperationState* states = nullptr);

}  // namespace nnremote::sim

#endif  // NNREMOTE_ACCELERATOR_SIM_GRAPH_EXECUTOR_H_
