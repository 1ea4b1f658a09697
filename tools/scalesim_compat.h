// SCALE-Sim v2 compatibility: its config (.cfg) and topology (.csv) formats in, its
// COMPUTE_REPORT.csv layout out, priced by nnremote's timing model.
#ifndef NNREMOTE_TOOLS_SCALESIM_COMPAT_H_
#define NNREMOTE_TOOLS_SCALESIM_COMPAT_H_

#include <string>
#include <vector>

#include "drivers/sim/npu_config.h"
#include "drivers/sim/timing/operation_work.h"
#include "hal/result.h"

namespace nnremote::tools {

// A SCALE-Sim config: ArrayHeight/ArrayWidth, the three SRAM sizes, Dataflow (os/ws/is),
// Bandwidth and InterfaceBandwidth (CALC = unlimited, USER = Bandwidth words per cycle; a word
// is one byte). Keys SCALE-Sim has but the model does not use (offsets, banks) are accepted.
hal::Result<sim::NpuConfig> parseScaleSimConfig(const std::string& text, const std::string& origin);

struct ScaleSimLayer {
  std::string name;
  sim::GemmWork gemm;  // one-byte elements, as SCALE-Sim counts words
};

// A conv topology (name, IFMAP H, IFMAP W, Filter H, Filter W, Channels, Num Filter, Strides)
// or, with `gemm`, a GEMM topology (name, M, N, K). A header line is skipped. Conv layers map to
// GEMMs the way SCALE-Sim does: no padding, output size ceil((H - Fh + s) / s).
hal::Result<std::vector<ScaleSimLayer>> parseScaleSimTopology(const std::string& text, bool gemm,
                                                              const std::string& origin);

// "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,"
// and one row per layer, as SCALE-Sim writes COMPUTE_REPORT.csv.
std::string computeReport(const std::vector<ScaleSimLayer>& layers, const sim::NpuConfig& npu);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_SCALESIM_COMPAT_H_
