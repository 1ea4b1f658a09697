#include "drivers/sim/kernels/xnnpack_ops.h"

#include <xnnpack.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace nnremote::sim {
namespace {

bool xnnpackReady() {
  static const bool ready = xnn_initialize(/*allocator=*/nullptr) == xnn_status_success;
  return ready;
}

// An operation's XNNPACK operator, created at its first execution. A null `op` records that
// XNNPACK declined the operation, so later executions do not ask again. `geometry` is what the
// operator was created for: padding depends on the input size under an implicit scheme, so an
// execution with other input dimensions builds a new operator rather than run a stale one.
struct CachedOperator {
  xnn_operator_t op = nullptr;
  std::vector<uint64_t> geometry;
  ~CachedOperator() {
    if (op != nullptr) xnn_delete_operator(op);
  }
};

// Runs the operation's cached operator, creating it with `create` on first use (or when the
// geometry changed); `setup` binds it to this execution's buffers. False if XNNPACK declines or
// fails.
bool runCached(OperationContext& context, std::vector<uint64_t> geometry,
               const std::function<xnn_status(xnn_operator_t*)>& create,
               const std::function<xnn_status(xnn_operator_t)>& setup) {
  OperationState* state = context.state();
  if (state == nullptr || !xnnpackReady()) return false;
  std::lock_guard<std::mutex> lock(state->mutex);
  auto* cached = static_cast<CachedOperator*>(state->value.get());
  if (cached == nullptr || cached->geometry != geometry) {
    auto created = std::make_shared<CachedOperator>();
    created->geometry = std::move(geometry);
    if (create(&created->op) != xnn_status_success) created->op = nullptr;
    state->value = created;
    cached = created.get();
  }
  return cached->op != nullptr && setup(cached->op) == xnn_status_success &&
         xnn_run_operator(cached->op, /*threadpool=*/nullptr) == xnn_status_success;
}

// XNNPACK may read up to XNN_EXTRA_BYTES past the end of an input (never write there), but our
// inputs end where their memory does: a client's page-aligned shared-memory pool, or a small heap
// block at the end of its mapping (a cache fuzzer seed crashed the server that way). An input
// whose over-read stays on the page of its last byte cannot fault and is passed as it is; any
// other is copied, with the slack, for the call. (4 KiB is the smallest page there is, so the
// check holds on systems with larger pages too.)
class SlackedInput {
 public:
  explicit SlackedInput(const Tensor& tensor) : data_(tensor.data) {
    constexpr uintptr_t kPage = 4096;
    const uintptr_t end = reinterpret_cast<uintptr_t>(tensor.data) + tensor.length;
    if (tensor.length > 0 && (end - 1) / kPage != (end - 1 + XNN_EXTRA_BYTES) / kPage) {
      copy_.resize(tensor.length + XNN_EXTRA_BYTES);
      std::memcpy(copy_.data(), tensor.data, tensor.length);
      data_ = copy_.data();
    }
  }
  template <typename T>
  const T* as() const { return reinterpret_cast<const T*>(data_); }

 private:
  const uint8_t* data_;
  std::vector<uint8_t> copy_;
};

std::vector<uint64_t> windowGeometry(const Window& w, std::initializer_list<uint64_t> more) {
  std::vector<uint64_t> geometry = {w.height.before, w.height.after, w.width.before,  w.width.after,
                                    w.strideHeight,  w.strideWidth,  w.dilationHeight, w.dilationWidth,
                                    w.filterHeight,  w.filterWidth};
  geometry.insert(geometry.end(), more);
  return geometry;
}

// XNNPACK sizes its output itself and writes all of it, unchecked: it must agree with the
// output tensor the kernel sized by NNAPI's rule, or it writes past the buffer. The two formulas
// differ where a window is larger than the padded input (XNNPACK still makes one pixel) and for
// empty tensors, which are then left to the kernel's own loop.
bool xnnpackAgreesOnWindowOutput(const Window& w, const Tensor& input, const Tensor& output) {
  if (input.rank() != 4 || output.rank() != 4 || input.elementCount() == 0 || output.elementCount() == 0) {
    return false;
  }
  const auto outputSide = [](uint64_t in, Padding padding, uint64_t filter, uint64_t dilation, uint64_t stride) {
    const uint64_t padded = in + padding.before + padding.after;
    const uint64_t effective = (filter == 0 ? 0 : (filter - 1) * dilation + 1);
    if (stride == 0 || filter == 0 || padded < effective) return uint64_t{0};
    return (padded - effective) / stride + 1;
  };
  return outputSide(input.dim(1), w.height, w.filterHeight, w.dilationHeight, w.strideHeight) == output.dim(1) &&
         outputSide(input.dim(2), w.width, w.filterWidth, w.dilationWidth, w.strideWidth) == output.dim(2) &&
         input.dim(0) == output.dim(0);
}

// The activation's clamp for XNNPACK, which takes infinities for "no bound".
std::pair<float, float> floatClamp(FusedActivation activation) {
  const FloatRange range = activationRange(activation);
  const float lowest = std::numeric_limits<float>::lowest(), highest = std::numeric_limits<float>::max();
  return {range.min == lowest ? -INFINITY : range.min, range.max == highest ? INFINITY : range.max};
}

// Whether the weights (input 1) and bias (input 2) are constants of a type XNNPACK packs.
bool packableWeights(const OperationContext& context) {
  const Tensor& input = context.input(0);
  const Tensor& weights = context.input(1);
  const Tensor& bias = context.input(2);
  if (!weights.isConstant || !bias.isConstant) return false;
  if (input.type == OperandType::TENSOR_FLOAT32) return weights.type == OperandType::TENSOR_FLOAT32;
  return input.type == OperandType::TENSOR_QUANT8_ASYMM && weights.type == OperandType::TENSOR_QUANT8_ASYMM &&
         context.output(0).type == OperandType::TENSOR_QUANT8_ASYMM;
}

// XNNPACK's quantized convolutions and fully-connected layers requantize by one factor, input
// scale × filter scale / output scale (computed as it does, in float), which must lie in
// [2^-32, 256). Above that it declines; below it, which NNAPI allows (every accumulator, bias
// included, then rounds to nothing, leaving the output's zero point), Debian's build asserts and
// aborts the process, which in npu_emulator is the whole server (found by the wire fuzzer, with a
// FULLY_CONNECTED). Both are left to the kernel's own loop.
bool xnnpackRequantizes(const Tensor& input, const Tensor& filter, const Tensor& output) {
  const float scale = input.scale * filter.scale / output.scale;
  return scale >= 0x1.0p-32f && scale < 256.0f;
}

}  // namespace

bool runConvolutionOnXnnpack(OperationContext& context, const XnnpackConvolution& c) {
  if (!packableWeights(context)) return false;
  const Tensor& input = context.input(0);
  const Tensor& filter = context.input(1);
  const Tensor& bias = context.input(2);
  Tensor& output = context.output(0);
  const size_t batches = input.dim(0), height = input.dim(1), width = input.dim(2);
  const size_t inputStride = size_t(c.groups) * c.groupInputChannels;
  const size_t outputStride = size_t(c.groups) * c.groupOutputChannels;
  const uint32_t flags = c.depthwise ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0;
  const Window& w = c.window;
  if (!xnnpackAgreesOnWindowOutput(w, input, output) || input.dim(3) != inputStride || output.dim(3) != outputStride) {
    return false;
  }
  const std::vector<uint64_t> geometry =
      windowGeometry(w, {c.groups, c.groupInputChannels, c.groupOutputChannels, flags, uint64_t(c.activation)});
  const SlackedInput in(input);
  if (input.type == OperandType::TENSOR_FLOAT32) {
    const auto clamp = floatClamp(c.activation);
    const float low = clamp.first, high = clamp.second;
    return runCached(
        context, geometry,
        [&](xnn_operator_t* op) {
          return xnn_create_convolution2d_nhwc_f32(
              w.height.before, w.width.after, w.height.after, w.width.before, w.filterHeight, w.filterWidth,
              w.strideHeight, w.strideWidth, w.dilationHeight, w.dilationWidth, c.groups, c.groupInputChannels,
              c.groupOutputChannels, inputStride, outputStride, filter.as<float>(), bias.as<float>(), low, high, flags,
              op);
        },
        [&](xnn_operator_t op) {
          return xnn_setup_convolution2d_nhwc_f32(op, batches, height, width, in.as<float>(),
                                                  output.asMutable<float>(), nullptr);
        });
  }
  if (!xnnpackRequantizes(input, filter, output)) return false;
  const QuantRange range = activationRange(c.activation, output);
  return runCached(
      context, geometry,
      [&](xnn_operator_t* op) {
        return xnn_create_convolution2d_nhwc_qu8(
            w.height.before, w.width.after, w.height.after, w.width.before, w.filterHeight, w.filterWidth,
            w.strideHeight, w.strideWidth, w.dilationHeight, w.dilationWidth, c.groups, c.groupInputChannels,
            c.groupOutputChannels,
            inputStride, outputStride, uint8_t(input.zeroPoint), input.scale, uint8_t(filter.zeroPoint), filter.scale,
            filter.as<uint8_t>(), bias.as<int32_t>(), uint8_t(output.zeroPoint), output.scale, uint8_t(range.min),
            uint8_t(range.max), flags, op);
      },
      [&](xnn_operator_t op) {
        return xnn_setup_convolution2d_nhwc_qu8(op, batches, height, width, in.as<uint8_t>(),
                                                output.asMutable<uint8_t>(), nullptr);
      });
}

bool runFullyConnectedOnXnnpack(OperationContext& context, uint32_t batches, FusedActivation activation) {
  if (!packableWeights(context)) return false;
  const Tensor& input = context.input(0);
  const Tensor& weights = context.input(1);
  const Tensor& bias = context.input(2);
  Tensor& output = context.output(0);
  const size_t units = weights.dim(0), inputSize = weights.dim(1);
  if (weights.rank() != 2 || units == 0 || inputSize == 0 || batches == 0 ||
      input.elementCount() != uint64_t{batches} * inputSize || output.elementCount() != uint64_t{batches} * units) {
    return false;
  }
  const std::vector<uint64_t> geometry = {units, inputSize, uint64_t(activation)};
  const SlackedInput in(input);
  if (input.type == OperandType::TENSOR_FLOAT32) {
    const auto clamp = floatClamp(activation);
    const float low = clamp.first, high = clamp.second;
    return runCached(
        context, geometry,
        [&](xnn_operator_t* op) {
          return xnn_create_fully_connected_nc_f32(inputSize, units, inputSize, units, weights.as<float>(),
                                                   bias.as<float>(), low, high, 0, op);
        },
        [&](xnn_operator_t op) {
          return xnn_setup_fully_connected_nc_f32(op, batches, in.as<float>(), output.asMutable<float>(), nullptr);
        });
  }
  if (!xnnpackRequantizes(input, weights, output)) return false;
  const QuantRange range = activationRange(activation, output);
  return runCached(
      context, geometry,
      [&](xnn_operator_t* op) {
        return xnn_create_fully_connected_nc_qu8(inputSize, units, inputSize, units, uint8_t(input.zeroPoint),
                                                 input.scale, uint8_t(weights.zeroPoint), weights.scale,
                                                 weights.as<uint8_t>(), bias.as<int32_t>(), uint8_t(output.zeroPoint),
                                                 output.scale, uint8_t(range.min), uint8_t(range.max), 0, op);
      },
      [&](xnn_operator_t op) {
        return xnn_setup_fully_connected_nc_qu8(op, batches, in.as<uint8_t>(), output.asMutable<uint8_t>(),
                                                nullptr);
      });
}

bool runPoolingOnXnnpack(OperationContext& context, const XnnpackPooling& p) {
  const Tensor& input = context.input(0);
  Tensor& output = context.output(0);
  const Window& w = p.window;
  if (!xnnpackAgreesOnWindowOutput(w, input, output) || output.dim(3) != input.dim(3)) return false;
  const size_t batches = input.dim(0), height = input.dim(1), width = input.dim(2), channels = input.dim(3);
  // XNNPACK builds an indirection buffer of one pointer per output pixel and window tap. A window
  // larger than the input is legal (the taps outside it are padding) but would make that buffer
  // enormous for nothing (a fuzzed 2 x 50,331,650 window took 1.8 GB), so such pools are left to
  // the kernel's own loop, which visits only the taps inside the input.
  constexpr uint64_t kMaxIndirectionEntries = uint64_t{1} << 24;
  const uint64_t taps = uint64_t{w.filterHeight} * w.filterWidth;
  if (w.filterHeight > height || w.filterWidth > width ||
      uint64_t{output.dim(1)} * output.dim(2) * taps > kMaxIndirectionEntries) {
    return false;
  }
  const std::vector<uint64_t> geometry = windowGeometry(w, {channels, p.max, uint64_t(p.activation)});
  const SlackedInput in(input);
  if (input.type == OperandType::TENSOR_FLOAT32) {
    const auto clamp = floatClamp(p.activation);
    const float low = clamp.first, high = clamp.second;
    return runCached(
        context, geometry,
        [&](xnn_operator_t* op) {
          return p.max ? xnn_create_max_pooling2d_nhwc_f32(w.height.before, w.width.after, w.height.after,
                                                           w.width.before, w.filterHeight, w.filterWidth,
                                                           w.strideHeight, w.strideWidth, 1, 1, channels, channels,
                                                           channels, low, high, 0, op)
                       : xnn_create_average_pooling2d_nhwc_f32(w.height.before, w.width.after, w.height.after,
                                                               w.width.before, w.filterHeight, w.filterWidth,
                                                               w.strideHeight, w.strideWidth, channels, channels,
                                                               channels, low, high, 0, op);
        },
        [&](xnn_operator_t op) {
          return p.max ? xnn_setup_max_pooling2d_nhwc_f32(op, batches, height, width, in.as<float>(),
                                                          output.asMutable<float>(), nullptr)
                       : xnn_setup_average_pooling2d_nhwc_f32(op, batches, height, width, in.as<float>(),
                                                              output.asMutable<float>(), nullptr);
        });
  }
  // XNNPACK's quantized average pooling counts padding taps, which NNAPI's does not.
  if (input.type != OperandType::TENSOR_QUANT8_ASYMM || !p.max) return false;
  const QuantRange range = activationRange(p.activation, output);
  return runCached(
      context, geometry,
      [&](xnn_operator_t* op) {
        return xnn_create_max_pooling2d_nhwc_u8(w.height.before, w.width.after, w.height.after, w.width.before,
                                                w.filterHeight, w.filterWidth, w.strideHeight, w.strideWidth, 1, 1,
                                                channels, channels, channels, uint8_t(range.min), uint8_t(range.max),
                                                0, op);
      },
      [&](xnn_operator_t op) {
        return xnn_setup_max_pooling2d_nhwc_u8(op, batches, height, width, in.as<uint8_t>(),
                                               output.asMutable<uint8_t>(), nullptr);
      });
}

bool runQuantizedBinaryOnXnnpack(OperationContext& context, XnnpackBinary operation, FusedActivation activation) {
  const Tensor& a = context.input(0);
  const Tensor& b = context.input(1);
  Tensor& output = context.output(0);
  if (a.type != OperandType::TENSOR_QUANT8_ASYMM || b.type != OperandType::TENSOR_QUANT8_ASYMM ||
      output.type != OperandType::TENSOR_QUANT8_ASYMM || a.rank() > XNN_MAX_TENSOR_DIMS ||
      b.rank() > XNN_MAX_TENSOR_DIMS || a.elementCount() == 0 || b.elementCount() == 0 ||
      output.elementCount() == 0) {
    return false;
  }
  // The three share one signature.
  using Create = xnn_status (*)(uint8_t, float, uint8_t, float, uint8_t, float, uint8_t, uint8_t, uint32_t,
                                xnn_operator_t*);
  using Setup = xnn_status (*)(xnn_operator_t, size_t, const size_t*, size_t, const size_t*, const uint8_t*,
                               const uint8_t*, uint8_t*, pthreadpool_t);
  Create create = &xnn_create_add_nd_qu8;
  Setup setup = &xnn_setup_add_nd_qu8;
  if (operation == XnnpackBinary::SUBTRACT) {
    create = &xnn_create_subtract_nd_qu8;
    setup = &xnn_setup_subtract_nd_qu8;
  } else if (operation == XnnpackBinary::MULTIPLY) {
    create = &xnn_create_multiply_nd_qu8;
    setup = &xnn_setup_multiply_nd_qu8;
  }
  const QuantRange range = activationRange(activation, output);
  const std::vector<size_t> shapeA(a.dimensions.begin(), a.dimensions.end());
  const std::vector<size_t> shapeB(b.dimensions.begin(), b.dimensions.end());
  // The quantization is the operator's; the shapes are given at each setup.
  const std::vector<uint64_t> geometry = {uint64_t(operation), uint64_t(activation)};
  const SlackedInput inA(a), inB(b);
  return runCached(
      context, geometry,
      [&](xnn_operator_t* op) {
        return create(uint8_t(a.zeroPoint), a.scale, uint8_t(b.zeroPoint), b.scale, uint8_t(output.zeroPoint),
                      output.scale, uint8_t(range.min), uint8_t(range.max), 0, op);
      },
      [&](xnn_operator_t op) {
        return setup(op, shapeA.size(), shapeA.data(), shapeB.size(), shapeB.data(), inA.as<uint8_t>(), inB.as<uint8_t>(),
                     output.asMutable<uint8_t>(), nullptr);
      });
}

}  // namespace nnremote::sim
