// The sample network `nnremote run-sample` drives: a small float32 CNN
// (CONV_2D -> DEPTHWISE_CONV_2D -> AVERAGE_POOL_2D -> RESHAPE -> FULLY_CONNECTED -> SOFTMAX)
// with deterministic weights, on one 8x8x3 image.
#ifndef NNREMOTE_TOOLS_SAMPLE_MODEL_H_
#define NNREMOTE_TOOLS_SAMPLE_MODEL_H_

#include <vector>

#include "hal/types.h"

namespace nnremote::tools {

struct SampleModel {
  hal::Model model;
  std::vector<float> input;              // [1, 8, 8, 3]
  std::vector<uint32_t> outputDimensions;  // [1, 4]
};

SampleModel buildSampleModel();

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_SAMPLE_MODEL_H_
