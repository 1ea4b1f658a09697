// Single-layer models of the hot kernels at sizes real networks use, with deterministic data,
// for side-by-side timing against XNNPACK (xnnpack_comparison_benchmark).
#ifndef NNREMOTE_BENCHMARKS_HOT_KERNEL_MODELS_H_
#define NNREMOTE_BENCHMARKS_HOT_KERNEL_MODELS_H_

#include <string>
#include <vector>

#include "tools/models/mobilenet_v1.h"

namespace nnremote::benchmarks {

struct HotKernelModel {
  std::string name;  // e.g. "max_pool_3x3_s2_112x112x64"
  tools::BuiltModel (*build)(tools::Precision precision);
};

// MAX_POOL_2D and AVERAGE_POOL_2D (3x3), ADD (ResNet's residual), FULLY_CONNECTED
// (a 2048 -> 1000 classifier).
const std::vector<HotKernelModel>& hotKernelModels();

}  // namespace nnremote::benchmarks

#endif  // NNREMOTE_BENCHMARKS_HOT_KERNEL_MODELS_H_
