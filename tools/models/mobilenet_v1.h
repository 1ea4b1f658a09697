// MobileNet v1 1.0-224 built in code with deterministic pseudo-random weights: 28 layers
// (CONV_2D, 13 x DEPTHWISE_CONV_2D + 1x1 CONV_2D, AVERAGE_POOL_2D, a 1x1 CONV_2D classifier,
// RESHAPE, SOFTMAX), all with ReLU6, NHWC, input [1, 224, 224, 3], output [1, 1001].
#ifndef NNREMOTE_TOOLS_MODELS_MOBILENET_V1_H_
#define NNREMOTE_TOOLS_MODELS_MOBILENET_V1_H_

#include "tools/models/built_model.h"

namespace nnremote::tools {

BuiltModel buildMobileNetV1(Precision precision);

// MobileNet v1 0.25-224: every layer a quarter as wide (Howard et al. 2017, section 3.3; at
// least 8 channels, as TF-slim's depth multiplier rounds), the same 28 layers and 1001 classes.
BuiltModel buildMobileNetV1Quarter(Precision precision);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_MODELS_MOBILENET_V1_H_
