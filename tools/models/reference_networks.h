// The networks of Coral's Edge TPU and Synaptics' VS680 benchmark tables (docs/timing.md), built
// in code with their reference architectures' layer shapes and deterministic pseudo-random
// weights. Each ends with a 1x1 convolution classifier, RESHAPE and SOFTMAX, as the TFLite models
// do.
#ifndef NNREMOTE_TOOLS_MODELS_REFERENCE_NETWORKS_H_
#define NNREMOTE_TOOLS_MODELS_REFERENCE_NETWORKS_H_

#include "tools/models/built_model.h"

namespace nnremote::tools {

// MobileNet v2 1.0-224 (Sandler et al. 2018, table 2): 17 inverted residual bottlenecks with
// ReLU6, 1280 features, 1001 classes.
BuiltModel buildMobileNetV2(Precision precision);

// Inception v1 at 224 as TF-slim builds it (GoogLeNet, Szegedy et al. 2014, table 1, with the
// "5x5" branches as 3x3 convolutions, as in the TFLite model Coral benchmarks), 1001 classes.
BuiltModel buildInceptionV1(Precision precision);

// Inception v4 at 299x299 (Szegedy et al. 2016, "Inception-v4, Inception-ResNet and the Impact
// of Residual Connections on Learning", figures 3-9, as TF-slim builds it): the stem, 4
// Inception-A, Reduction-A, 7 Inception-B, Reduction-B, 3 Inception-C, 1001 classes. The network
// of Synaptics' VS680 table.
BuiltModel buildInceptionV4(Precision precision);

// SqueezeNet v1.0 (Iandola et al. 2016, table 1) at 224: conv1 7x7/2 96, 8 fire modules, conv10
// to 1000 classes, with VALID windows.
BuiltModel buildSqueezeNet(Precision precision);

// ResNet-50 v1 (He et al. 2015, table 1) at 299x299: bottleneck stages of 3, 4, 6 and 3 blocks,
// stride on the first 1x1 of a stage, projection shortcuts, 1001 classes.
BuiltModel buildResNet50V1(Precision precision);

// MobileNet v1 SSD at 300x300 as the TensorFlow object detection API builds it (Liu et al. 2016;
// ssd_mobilenet_v1_coco): feature maps from conv11 (19x19) and conv13 (10x10) and four extra
// layers down to 1x1, 1x1 box predictors with 3 then 6 anchors per position (1,917 anchors), 91
// classes with background, and DETECTION_POSTPROCESSING to 10 detections, as the TFLite model
// ends. Outputs: scores [1, 10], boxes [1, 10, 4], classes [1, 10], detections [1].
BuiltModel buildMobileNetV1Ssd(Precision precision);

// MobileNet v2 SSD at 300x300 (ssd_mobilenet_v2_coco): the same head on MobileNet v2's
// layer_15/expansion_output (19x19x576) and its final 1x1 convolution (10x10x1280). Outputs as
// for buildMobileNetV1Ssd.
BuiltModel buildMobileNetV2Ssd(Precision precision);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_MODELS_REFERENCE_NETWORKS_H_
