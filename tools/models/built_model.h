// A model built in code, with one deterministic input: what the built-in networks return.
#ifndef NNREMOTE_TOOLS_MODELS_BUILT_MODEL_H_
#define NNREMOTE_TOOLS_MODELS_BUILT_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hal/types.h"

namespace nnremote::tools {

enum class Precision { FLOAT32, QUANT8 };

struct BuiltModel {
  hal::Model model;
  std::vector<uint8_t> input;       // one deterministic image
  std::vector<size_t> outputSizes;  // bytes of each output
};

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_MODELS_BUILT_MODEL_H_
