// What the per-family lowerings share, internal to the Arm NN backend. model_lowering.cc is the
// frame: a LoweringContext holds the network being built and reads operands, constants and
// tensors; each family file (elementwise_lowering.cc, convolution_lowering.cc,
// shape_lowering.cc) lists how it lowers its operations as a table keyed by OperationType, and
// lowerModel/lowerOperation dispatch through the union of those tables. A family file lists only
// operations of the hal family of the same name (hal/operations/families.h), so hal's table stays
// the one list of operations; tests/drivers/armnn/lowering_table_test.cc checks that.
#ifndef NNREMOTE_DRIVERS_ARMNN_LOWERING_CONTEXT_H_
#define NNREMOTE_DRIVERS_ARMNN_LOWERING_CONTEXT_H_

#include <armnn/INetwork.hpp>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <utility>
#include <vector>

#include "drivers/armnn/lowered_network.h"
#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::armnn::lowering {

// A model or operation that is not lowered; the message says why.
inline hal::ErrorBuilder unsupported() { return hal::invalidArgument(); }

// Builds one network from some of a model's operations.
class LoweringContext {
 public:
  // `wholeModel`: every temporary must be written before it is read; otherwise temporaries
  // from outside the lowered operations are network inputs.
  LoweringContext(const hal::Model& model, bool wholeModel);

  ::armnn::INetwork& network() { return *result_.network; }
  const hal::Operand& operand(uint32_t index) const { return graph_.operands[index]; }
  size_t rankOf(uint32_t index) const { return operand(index).dimensions.size(); }

  // The operand's Arm NN type, quantization included, for a fully specified tensor of rank 1-4.
  hal::Result<::armnn::TensorInfo> tensorInfo(uint32_t index) const;
  // Constant scalars. floatScalar reads FLOAT32, or FLOAT16 in float16 models.
  hal::Result<int32_t> int32Scalar(uint32_t index) const;
  hal::Result<float> floatScalar(uint32_t index) const;
  hal::Result<bool> boolScalar(uint32_t index) const;
  // A constant TENSOR_INT32's values (axes, shapes, paddings).
  hal::Result<std::vector<int32_t>> int32Values(uint32_t index) const;
  // A constant tensor (weights), which Arm NN 20.08 requires where it takes a ConstTensor.
  hal::Result<::armnn::ConstTensor> constantTensor(uint32_t index) const;
  // The optional trailing layout flag: NCHW when true, NHWC when false or absent.
  hal::Result<::armnn::DataLayout> layoutOf(const hal::Operation& operation, size_t layoutIndex) const;

  // The slot that produces operand `index`: an earlier layer's, a constant layer, or a new
  // network input for a tensor nothing here produces.
  hal::Result<::armnn::IOutputSlot*> slotOf(uint32_t index);
  // Connects `layer`'s input slots to `operands` in order.
  hal::Status connectInputs(::armnn::IConnectableLayer* layer, const std::vector<uint32_t>& operands);
  // Sets `slot` to produce operand `index`, after the fused activation `activationCode`.
  hal::Status produce(::armnn::IOutputSlot* slot, uint32_t index, int32_t activationCode);
  // A reshape in front of `index`'s slot, to `shape`.
  hal::Result<::armnn::IOutputSlot*> reshaped(uint32_t index, const ::armnn::TensorShape& shape);
  // One input tensor through `layer`; the other inputs were read into its descriptor.
  hal::Status lowerThrough(::armnn::IConnectableLayer* layer, const hal::Operation& operation);
  // Bytes that must outlive the layers built from them (Arm NN copies constant tensors only when
  // a layer is added, so data made here is kept until the network is taken).
  std::vector<uint8_t>& keptBytes(size_t size) { return keptBytes_.emplace_back(size); }

  // Binds `operands` as the network's outputs, in order.
  hal::Status bindOutputs(const std::vector<uint32_t>& operands);
  LoweredNetwork take() { return std::move(result_); }

 private:
  ::armnn::IOutputSlot* addInput(uint32_t index);

  const hal::Model& model_;
  const hal::Model::Subgraph& graph_;
  const bool wholeModel_;
  LoweredNetwork result_;
  std::map<uint32_t, ::armnn::IOutputSlot*> slots_;
  std::vector<std::vector<uint8_t>> keptBytes_;
};

// INVALID_ARGUMENT unless the operation has one of `counts` inputs: the forms that are lowered.
hal::Status expectInputs(const hal::Operation& operation, std::initializer_list<size_t> counts);
// A dimension index that may count from the end, checked against `rank`.
hal::Result<unsigned> axisIn(int32_t axis, size_t rank);

// Lowers one operation (its output count already checked to be 1) into the context's network.
using Lowering = hal::Status (*)(LoweringContext& context, const hal::Operation& operation);
using LoweringTable = std::vector<std::pair<hal::OperationType, Lowering>>;

// Each family's lowerings, one entry per operation.
LoweringTable elementwiseLowerings();
LoweringTable convolutionLowerings();
LoweringTable shapeLowerings();

struct LoweringFamily {
  // The hal family its operations belong to: "elementwise" is hal::signatures::elementwiseSignatures().
  const char* halFamily;
  LoweringTable (*lowerings)();
};

// Every family with operations lowered to Arm NN; the dispatch and the table test both walk it.
std::vector<LoweringFamily> loweringFamilies();

}  // namespace nnremote::armnn::lowering

#endif  // NNREMOTE_DRIVERS_ARMNN_LOWERING_CONTEXT_H_
