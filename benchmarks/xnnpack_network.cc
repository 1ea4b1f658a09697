#include "benchmarks/xnnpack_network.h"

#include <xnnpack.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

#include "hal/operand_types.h"

namespace nnremote::benchmarks {

using hal::OperandType;
using hal::OperationType;

struct XnnpackNetwork::Step {
  xnn_operator_t op = nullptr;
  std::function<xnn_status(xnn_operator_t)> setup;  // binds the operator to this network's buffers
};

namespace {

hal::Error unsupportedStep(size_t index, const std::string& why) {
  return hal::invalidArgument() << "operations[" << index << "]: " << why;
}

struct ActivationBounds {
  float min, max;
};

// NNAPI fused activation codes 0 (none), 1 (ReLU), 3 (ReLU6).
ActivationBounds activationBounds(int32_t code) {
  switch (code) {
    case 1: return {0.0f, INFINITY};
    case 3: return {0.0f, 6.0f};
    default: return {-INFINITY, INFINITY};
  }
}

uint8_t quantizeBound(float value, const hal::Operand& output) {
  if (std::isinf(value)) return value < 0 ? 0 : 255;
  return uint8_t(std::clamp(std::lround(value / output.scale) + output.zeroPoint, 0L, 255L));
}

// TensorFlow's SAME padding: the odd pixel goes after.
void samePadding(uint32_t in, uint32_t stride, uint32_t kernel, uint32_t* before, uint32_t* after) {
  const uint32_t out = (in + stride - 1) / stride;
  const int64_t total = std::max<int64_t>(int64_t(out - 1) * stride + kernel - in, 0);
  *before = uint32_t(total / 2);
  *after = uint32_t(total - total / 2);
}

}  // namespace

XnnpackNetwork::~XnnpackNetwork() {
  for (Step& step : steps_) xnn_delete_operator(step.op);
}

hal::Result<std::unique_ptr<XnnpackNetwork>> XnnpackNetwork::create(const hal::Model& model) {
  if (xnn_initialize(nullptr) != xnn_status_success) return hal::invalidArgument() << "XNNPACK cannot initialize";
  const hal::Model::Subgraph& main = model.main;
  if (main.inputIndexes.size() != 1 || main.outputIndexes.size() != 1) {
    return hal::invalidArgument() << "the network must have one input and one output";
  }
  std::unique_ptr<XnnpackNetwork> network(new XnnpackNetwork());
  network->inputOperand_ = main.inputIndexes[0];
  network->outputOperand_ = main.outputIndexes[0];
  network->buffers_.resize(main.operands.size());
  for (size_t i = 0; i < main.operands.size(); ++i) {
    const hal::Operand& operand = main.operands[i];
    if (operand.lifetime == hal::Operand::LifeTime::CONSTANT_COPY) {
      const uint8_t* data = model.operandValues.data() + operand.location.offset;
      network->buffers_[i].assign(data, data + operand.location.length);
    } else if (operand.lifetime != hal::Operand::LifeTime::NO_VALUE) {
      network->buffers_[i].resize(hal::sizeOfData(operand.type, operand.dimensions).value_or(0));
    }
  }
  auto& buffers = network->buffers_;
  auto scalar = [&](uint32_t operand) {
    int32_t value;
    std::memcpy(&value, buffers[operand].data(), sizeof(value));
    return value;
  };

  for (size_t index = 0; index < main.operations.size(); ++index) {
    const hal::Operation& operation = main.operations[index];
    const hal::Operand& in = main.operands[operation.inputs[0]];
    const hal::Operand& out = main.operands[operation.outputs[0]];
    const bool quantized = in.type == OperandType::TENSOR_QUANT8_ASYMM;
    if (!quantized && in.type != OperandType::TENSOR_FLOAT32) return unsupportedStep(index, "not float32 or quant8");
    uint8_t* input = buffers[operation.inputs[0]].data();
    uint8_t* output = buffers[operation.outputs[0]].data();
    Step step;
    xnn_status status = xnn_status_success;
    switch (operation.type) {
      case OperationType::CONV_2D:
      case OperationType::DEPTHWISE_CONV_2D: {
        const bool depthwise = operation.type == OperationType::DEPTHWISE_CONV_2D;
        if (operation.inputs.size() != (depthwise ? 8u : 7u)) return unsupportedStep(index, "needs implicit padding");
        const hal::Operand& filter = main.operands[operation.inputs[1]];
        const uint32_t kernelH = filter.dimensions[1], kernelW = filter.dimensions[2];
        const uint32_t inH = in.dimensions[1], inW = in.dimensions[2], inC = in.dimensions[3];
        const uint32_t outC = out.dimensions[3];
        const int32_t scheme = scalar(operation.inputs[3]);
        const uint32_t strideW = uint32_t(scalar(operation.inputs[4])), strideH = uint32_t(scalar(operation.inputs[5]));
        const int32_t activation = scalar(operation.inputs[depthwise ? 7 : 6]);
        uint32_t top = 0, bottom = 0, left = 0, right = 0;
        if (scheme == 1) {
          samePadding(inH, strideH, kernelH, &top, &bottom);
          samePadding(inW, strideW, kernelW, &left, &right);
        }
        const uint32_t groups = depthwise ? inC : 1;
        const size_t groupIn = depthwise ? 1 : inC, groupOut = depthwise ? outC / inC : outC;
        const uint32_t flags = depthwise ? XNN_FLAG_DEPTHWISE_CONVOLUTION : 0;
        const ActivationBounds bounds = activationBounds(activation);
        const uint8_t* weights = buffers[operation.inputs[1]].data();
        const uint8_t* bias = buffers[operation.inputs[2]].data();
        if (quantized) {
          status = xnn_create_convolution2d_nhwc_qu8(
              top, right, bottom, left, kernelH, kernelW, strideH, strideW, 1, 1, groups, groupIn, groupOut, inC,
              outC, uint8_t(in.zeroPoint), in.scale, uint8_t(filter.zeroPoint), filter.scale, weights,
              reinterpret_cast<const int32_t*>(bias), uint8_t(out.zeroPoint), out.scale, quantizeBound(bounds.min, out),
              quantizeBound(bounds.max, out), flags, &step.op);
          step.setup = [inH, inW, input, output](xnn_operator_t op) {
            return xnn_setup_convolution2d_nhwc_qu8(op, 1, inH, inW, input, output, nullptr);
          };
        } else {
          status = xnn_create_convolution2d_nhwc_f32(
              top, right, bottom, left, kernelH, kernelW, strideH, strideW, 1, 1, groups, groupIn, groupOut, inC, outC,
              reinterpret_cast<const float*>(weights), reinterpret_cast<const float*>(bias), bounds.min, bounds.max,
              flags, &step.op);
          step.setup = [inH, inW, input, output](xnn_operator_t op) {
            return xnn_setup_convolution2d_nhwc_f32(op, 1, inH, inW, reinterpret_cast<const float*>(input),
                                                    reinterpret_cast<float*>(output), nullptr);
          };
        }
        break;
      }
      case OperationType::AVERAGE_POOL_2D:
      case OperationType::MAX_POOL_2D: {
        // Implicit padding: input, scheme, stride w/h, filter w/h, activation.
        if (operation.inputs.size() != 7) return unsupportedStep(index, "needs implicit padding");
        const uint32_t inH = in.dimensions[1], inW = in.dimensions[2], channels = in.dimensions[3];
        const int32_t scheme = scalar(operation.inputs[1]);
        const uint32_t strideW = uint32_t(scalar(operation.inputs[2])), strideH = uint32_t(scalar(operation.inputs[3]));
        const uint32_t poolW = uint32_t(scalar(operation.inputs[4])), poolH = uint32_t(scalar(operation.inputs[5]));
        const ActivationBounds bounds = activationBounds(scalar(operation.inputs[6]));
        uint32_t top = 0, bottom = 0, left = 0, right = 0;
        if (scheme == 1) {
          samePadding(inH, strideH, poolH, &top, &bottom);
          samePadding(inW, strideW, poolW, &left, &right);
        }
        const bool global = out.dimensions[1] == 1 && out.dimensions[2] == 1 && poolH == inH && poolW == inW;
        if (operation.type == OperationType::MAX_POOL_2D) {
          if (quantized) {
            status = xnn_create_max_pooling2d_nhwc_u8(top, right, bottom, left, poolH, poolW, strideH, strideW, 1, 1,
                                                      channels, channels, channels, quantizeBound(bounds.min, out),
                                                      quantizeBound(bounds.max, out), 0, &step.op);
            step.setup = [inH, inW, input, output](xnn_operator_t op) {
              return xnn_setup_max_pooling2d_nhwc_u8(op, 1, inH, inW, input, output, nullptr);
            };
          } else {
            status = xnn_create_max_pooling2d_nhwc_f32(top, right, bottom, left, poolH, poolW, strideH, strideW, 1, 1,
                                                       channels, channels, channels, bounds.min, bounds.max, 0,
                                                       &step.op);
            step.setup = [inH, inW, input, output](xnn_operator_t op) {
              return xnn_setup_max_pooling2d_nhwc_f32(op, 1, inH, inW, reinterpret_cast<const float*>(input),
                                                      reinterpret_cast<float*>(output), nullptr);
            };
          }
        } else if (global && quantized) {
          status = xnn_create_global_average_pooling_nwc_qu8(channels, channels, channels, uint8_t(in.zeroPoint),
                                                             in.scale, uint8_t(out.zeroPoint), out.scale,
                                                             quantizeBound(bounds.min, out),
                                                             quantizeBound(bounds.max, out), 0, &step.op);
          step.setup = [inH, inW, input, output](xnn_operator_t op) {
            return xnn_setup_global_average_pooling_nwc_qu8(op, 1, inH * inW, input, output, nullptr);
          };
        } else if (global) {
          status = xnn_create_global_average_pooling_nwc_f32(channels, channels, channels, bounds.min, bounds.max, 0,
                                                             &step.op);
          step.setup = [inH, inW, input, output](xnn_operator_t op) {
            return xnn_setup_global_average_pooling_nwc_f32(op, 1, inH * inW, reinterpret_cast<const float*>(input),
                                                            reinterpret_cast<float*>(output), nullptr);
          };
        } else if (quantized) {
          status = xnn_create_average_pooling2d_nhwc_qu8(top, right, bottom, left, poolH, poolW, strideH, strideW,
                                                         channels, channels, channels, uint8_t(in.zeroPoint), in.scale,
                                                         uint8_t(out.zeroPoint), out.scale,
                                                         quantizeBound(bounds.min, out),
                                                         quantizeBound(bounds.max, out), 0, &step.op);
          step.setup = [inH, inW, input, output](xnn_operator_t op) {
            return xnn_setup_average_pooling2d_nhwc_qu8(op, 1, inH, inW, input, output, nullptr);
          };
        } else {
          status = xnn_create_average_pooling2d_nhwc_f32(top, right, bottom, left, poolH, poolW, strideH, strideW,
                                                         channels, channels, channels, bounds.min, bounds.max, 0,
                                                         &step.op);
          step.setup = [inH, inW, input, output](xnn_operator_t op) {
            return xnn_setup_average_pooling2d_nhwc_f32(op, 1, inH, inW, reinterpret_cast<const float*>(input),
                                                        reinterpret_cast<float*>(output), nullptr);
          };
        }
        break;
      }
      case OperationType::ADD: {
        // input + a second operand of the same shape (a constant, or another operation's output).
        const hal::Operand& other = main.operands[operation.inputs[1]];
        if (other.dimensions != in.dimensions) return unsupportedStep(index, "ADD without broadcasting only");
        const ActivationBounds bounds = activationBounds(scalar(operation.inputs[2]));
        std::vector<size_t> shape(in.dimensions.begin(), in.dimensions.end());
        const uint8_t* second = buffers[operation.inputs[1]].data();
        if (quantized) {
          status = xnn_create_add_nd_qu8(uint8_t(in.zeroPoint), in.scale, uint8_t(other.zeroPoint), other.scale,
                                         uint8_t(out.zeroPoint), out.scale, quantizeBound(bounds.min, out),
                                         quantizeBound(bounds.max, out), 0, &step.op);
          step.setup = [shape, input, second, output](xnn_operator_t op) {
            return xnn_setup_add_nd_qu8(op, shape.size(), shape.data(), shape.size(), shape.data(), input, second,
                                        output, nullptr);
          };
        } else {
          status = xnn_create_add_nd_f32(bounds.min, bounds.max, 0, &step.op);
          step.setup = [shape, input, second, output](xnn_operator_t op) {
            return xnn_setup_add_nd_f32(op, shape.size(), shape.data(), shape.size(), shape.data(),
                                        reinterpret_cast<const float*>(input), reinterpret_cast<const float*>(second),
                                        reinterpret_cast<float*>(output), nullptr);
          };
        }
        break;
      }
      case OperationType::FULLY_CONNECTED: {
        const hal::Operand& weights = main.operands[operation.inputs[1]];
        const size_t units = weights.dimensions[0], inputSize = weights.dimensions[1];
        const size_t batches = hal::elementCount(in.dimensions) / inputSize;
        const ActivationBounds bounds = activationBounds(scalar(operation.inputs[3]));
        const uint8_t* kernel = buffers[operation.inputs[1]].data();
        const uint8_t* bias = buffers[operation.inputs[2]].data();
        if (quantized) {
          status = xnn_create_fully_connected_nc_qu8(
              inputSize, units, inputSize, units, uint8_t(in.zeroPoint), in.scale, uint8_t(weights.zeroPoint),
              weights.scale, kernel, reinterpret_cast<const int32_t*>(bias), uint8_t(out.zeroPoint), out.scale,
              quantizeBound(bounds.min, out), quantizeBound(bounds.max, out), 0, &step.op);
          step.setup = [batches, input, output](xnn_operator_t op) {
            return xnn_setup_fully_connected_nc_qu8(op, batches, input, output, nullptr);
          };
        } else {
          status = xnn_create_fully_connected_nc_f32(inputSize, units, inputSize, units,
                                                     reinterpret_cast<const float*>(kernel),
                                                     reinterpret_cast<const float*>(bias), bounds.min, bounds.max, 0,
                                                     &step.op);
          step.setup = [batches, input, output](xnn_operator_t op) {
            return xnn_setup_fully_connected_nc_f32(op, batches, reinterpret_cast<const float*>(input),
                                                    reinterpret_cast<float*>(output), nullptr);
          };
        }
        break;
      }
      case OperationType::RESHAPE: {
        // Same bytes, new shape: alias the output to the input.
        step.setup = [&buffers, from = operation.inputs[0], to = operation.outputs[0]](xnn_operator_t) {
          std::memcpy(buffers[to].data(), buffers[from].data(), buffers[to].size());
          return xnn_status_success;
        };
        network->steps_.push_back(std::move(step));
        continue;
      }
      case OperationType::SOFTMAX: {
        const size_t channels = in.dimensions.back();
        if (quantized) {
          status = xnn_create_softmax_nc_qu8(channels, channels, channels, in.scale, uint8_t(out.zeroPoint), out.scale,
                                             0, &step.op);
          step.setup = [input, output](xnn_operator_t op) {
            return xnn_setup_softmax_nc_qu8(op, 1, input, output, nullptr);
          };
        } else {
          status = xnn_create_softmax_nc_f32(channels, channels, channels, 0, &step.op);
          step.setup = [input, output](xnn_operator_t op) {
            return xnn_setup_softmax_nc_f32(op, 1, reinterpret_cast<const float*>(input),
                                            reinterpret_cast<float*>(output), nullptr);
          };
        }
        break;
      }
      default:
        return unsupportedStep(index, "operation type " + std::to_string(int(operation.type)) + " is not translated");
    }
    if (status != xnn_status_success) {
      return unsupportedStep(index, "XNNPACK refused the operator (status " + std::to_string(int(status)) + ")");
    }
    network->steps_.push_back(std::move(step));
  }
  return network;
}

hal::Result<std::vector<uint8_t>> XnnpackNetwork::run(const std::vector<uint8_t>& input) {
  std::vector<uint8_t>& in = buffers_[inputOperand_];
  if (input.size() != in.size()) return hal::invalidArgument() << "input has " << input.size() << " bytes, want " << in.size();
  std::memcpy(in.data(), input.data(), in.size());
  for (Step& step : steps_) {
    if (step.setup(step.op) != xnn_status_success) return hal::invalidArgument() << "XNNPACK setup failed";
    if (step.op != nullptr && xnn_run_operator(step.op, nullptr) != xnn_status_success) {
      return hal::invalidArgument() << "XNNPACK run failed";
    }
  }
  return buffers_[outputOperand_];
}

}  // namespace nnremote::benchmarks
