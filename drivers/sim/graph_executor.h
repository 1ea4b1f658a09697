// Runs a validated model's main subgraph on a request, operation by operation, and estimates
// the cycles the NPU would take.
#ifndef NNREMOTE_DRIVERS_SIM_GRAPH_EXECUTOR_H_
#define NNREMOTE_DRIVERS_SIM_GRAPH_EXECUTOR_H_

#include <chrono>
#include <vector>

#include "drivers/sim/npu_config.h"
#include "drivers/sim/operation_context.h"
#include "drivers/sim/timing/operation_timing.h"
#include "hal/execution_profile.h"
#include "hal/types.h"

namespace nnremote::sim {

// Tensors for every operand of `subgraph` with constant data attached and nothing else: what
// kernels see when validating. Points into `model`, which must outlive the result.
std::vector<Tensor> staticTensors(const hal::Model& model, const hal::Model::Subgraph& subgraph);

// How far checkOperations looks: whether the simulator has a kernel for each operation, or also
// whether that kernel accepts the operation's constant parameters and the shapes known so far.
enum class OperationCheck { kHasKernel, kKernelAccepts };

// Checks every operation of the main subgraph; one entry per operation, ok where the simulator
// can run it. An IF or WHILE is ok when every operation of the subgraphs it calls is.
std::vector<Status> checkOperations(const hal::Model& model, OperationCheck check = OperationCheck::kKernelAccepts);

// For each operation of main: whether checkOperations saw everything an execution would show
// the kernel's validate (every non-constant tensor input of fully specified dimensions, and no
// question about a value known only at execution), so executions need not check it again.
std::vector<bool> operationsSettledAtPreparation(const hal::Model& model);

struct ExecutionReport {
  std::vector<hal::OutputShape> outputShapes;
  hal::ExecutionProfile profile;  // per operation, as the configured NPU would take it
  // Host time spent inside kernels: the simulation itself, as opposed to driver work.
  uint64_t kernelNanoseconds = 0;
  // Host time spent pricing operations with the timing model.
  uint64_t timingModelNanoseconds = 0;
};

// How long a WHILE may run when the request does not say (NNAPI's default), and the most it may
// ask for.
constexpr hal::Duration kDefaultLoopTimeout = std::chrono::seconds(2);
constexpr hal::Duration kMaxLoopTimeout = std::chrono::seconds(15);

struct ExecutionOptions {
  // Price every operation on the NPU (ExecutionReport::profile).
  bool withTiming = false;
  // One OperationState per operation, main's first and then each referenced subgraph's in
  // order (operationStateCount), kept by the caller across executions of the model; or null.
  OperationState* states = nullptr;
  // operationsSettledAtPreparation(model), kept by the caller; null: every operation is checked
  // again at every execution.
  const std::vector<bool>* settled = nullptr;
  // A WHILE that runs longer fails the execution with MISSED_DEADLINE_TRANSIENT.
  hal::Duration loopTimeout = kDefaultLoopTimeout;
  // Device memory: the tensors of main (inputs, outputs and intermediates) plus
  // `residentBytes` (the model's constants) must fit, or the execution fails with
  // RESOURCE_EXHAUSTED_PERSISTENT before the operand that does not fit is allocated. 0: no limit.
  uint64_t deviceMemoryBytes = 0;
  uint64_t residentBytes = 0;
};

// Where a constant operand's bytes are (CONSTANT_COPY, CONSTANT_REFERENCE or POINTER); null for
// any other lifetime. Kernels only read through it.
uint8_t* constantData(const hal::Model& model, const hal::Operand& operand);

// The bytes of every constant operand of every subgraph: what stays in device memory while
// the model is prepared.
uint64_t constantBytes(const hal::Model& model);

// How many OperationStates ExecutionOptions::states needs for `model`.
size_t operationStateCount(const hal::Model& model);

// Executes `model` (validated, every operation supported) on `request` (validated against
// it), running IF and WHILE through their referenced subgraphs. Writes outputs into the
// request's pools. If an output does not fit, returns OUTPUT_INSUFFICIENT_SIZE with the needed
// shapes and writes nothing. An IF or WHILE is priced as the operations it actually ran plus one
// DRAM latency per branch decision (the sequencer reads the condition back).
hal::Result<ExecutionReport> executeGraph(const hal::Model& model, const hal::Request& request,
                                          const NpuConfig& npu, const ExecutionOptions& options);

}  // namespace nnremote::sim

#endif  // NNREMOTE_DRIVERS_SIM_GRAPH_EXECUTOR_H_
