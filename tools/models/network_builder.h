// Builds image networks layer by layer, the way their reference architectures are written:
// convolutions, depthwise convolutions, pooling, residual additions and concatenations on NHWC
// tensors whose shapes it tracks. Weights are deterministic pseudo-random numbers (timing depends
// on shapes, not values); quant8 networks use one activation scale throughout.
#ifndef NNREMOTE_TOOLS_MODELS_NETWORK_BUILDER_H_
#define NNREMOTE_TOOLS_MODELS_NETWORK_BUILDER_H_

#include <cstdint>
#include <vector>

#include "hal/model_builder.h"
#include "tools/models/built_model.h"

namespace nnremote::tools {

// A fixed linear congruential generator, so every build is identical on every machine.
class Lcg {
 public:
  float uniform() {  // in [-1, 1)
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>((state_ >> 40) & 0xffffff) / float(1 << 23) - 1.0f;
  }

 private:
  uint64_t state_ = 20261121;
};

// An NHWC tensor of batch 1 and the operand that holds it.
struct Tensor {
  uint32_t operand;
  uint32_t height, width, channels;
};

enum class Padding : int32_t { SAME = 1, VALID = 2 };         // NNAPI's implicit padding schemes
enum class Activation : int32_t { NONE = 0, RELU = 1, RELU6 = 3 };  // NNAPI's fused activations

class NetworkBuilder {
 public:
  explicit NetworkBuilder(Precision precision) : precision_(precision) {}

  bool quantized() const { return precision_ == Precision::QUANT8; }

  // The image input; quant8 inputs are [-1, 1) as uint8 with zero point 128.
  Tensor input(uint32_t height, uint32_t width, uint32_t channels);

  Tensor conv(const Tensor& in, uint32_t outChannels, uint32_t kernel, uint32_t stride, Activation activation,
              Padding padding = Padding::SAME);
  // A kernelHeight x kernelWidth convolution with stride 1 and SAME padding: Inception's
  // factorized 1x7, 7x1, 1x3 and 3x1 convolutions.
  Tensor factorizedConv(const Tensor& in, uint32_t outChannels, uint32_t kernelHeight, uint32_t kernelWidth,
                        Activation activation);
  // Channel multiplier 1.
  Tensor depthwise(const Tensor& in, uint32_t kernel, uint32_t stride, Activation activation,
                   Padding padding = Padding::SAME);
  Tensor maxPool(const Tensor& in, uint32_t kernel, uint32_t stride, Padding padding);
  Tensor averagePool(const Tensor& in, uint32_t kernel, uint32_t stride, Padding padding);
  Tensor add(const Tensor& a, const Tensor& b, Activation activation);
  Tensor concatChannels(const std::vector<Tensor>& parts);

  // A 1x1 convolution of `features` to `classes` logits, without activation, at every position:
  // the classifier the TFLite models end with (on 1 x 1 features), and SSD's box predictors.
  Tensor classifier(const Tensor& features, uint32_t classes);
  // RESHAPE of `logits` (1 x 1 x classes) to [1, classes] and SOFTMAX as the output; then the
  // model, with one deterministic input image.
  BuiltModel finishWithSoftmax(const Tensor& logits);
  // The model as it stands, whose outputs were added with raw(), with one deterministic input.
  BuiltModel finish();

  // For layers this builder has no method for.
  hal::ModelBuilder& raw() { return b_; }
  hal::OperandType tensorType() const;

 private:
  // Weights with variance 2 / fan_in (He), so activations stay in range through deep networks.
  uint32_t weights(std::vector<uint32_t> dims, uint32_t fanIn);
  uint32_t bias(uint32_t channels, float inputScale, float weightScale);
  float scaleOf(uint32_t operand) { return b_.model().main.operands[operand].scale; }
  Tensor activationTensor(uint32_t height, uint32_t width, uint32_t channels);
  Tensor pool(hal::OperationType type, const Tensor& in, uint32_t kernel, uint32_t stride, Padding padding);
  Tensor convolution(const Tensor& in, uint32_t outChannels, uint32_t kernelHeight, uint32_t kernelWidth,
                     uint32_t stride, Activation activation, Padding padding);

  Precision precision_;
  hal::ModelBuilder b_;
  Lcg rng_;
  Tensor input_{};
};

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_MODELS_NETWORK_BUILDER_H_
