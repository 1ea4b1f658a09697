// Simulated latency of the networks built in code against what real NPUs publish for them.
#ifndef NNREMOTE_BENCHMARKS_CALIBRATION_H_
#define NNREMOTE_BENCHMARKS_CALIBRATION_H_

#include <string>
#include <vector>

#include "drivers/sim/npu_config.pb.h"
#include "hal/execution_profile.h"
#include "hal/result.h"

namespace nnremote::benchmarks {

// A published latency: a network on a real NPU, and where the figure comes from.
struct PublishedLatency {
  std::string preset;   // the simulated NPU that stands for the real one
  std::string network;  // as published
  std::string model;    // the built-in model (nnremote --model)
  double milliseconds;
  std::string source;
};

// For the networks built in code: Coral's Edge TPU benchmark table (coral.ai, "Edge TPU
// performance benchmarks", time per inference, Dev Board; the issue's six networks and MobileNet
// v2 SSD), and the VS680's "Offline NPU Infer"
// column of Synaptics' SyNAP documentation (Reference Models, Timings; median of 10).
const std::vector<PublishedLatency>& publishedLatencies();

// The band a calibrated preset must reach: within ±25% of the published time.
inline bool outsideCalibrationBand(double ratio) { return ratio < 0.75 || ratio > 1.25; }

struct CalibrationRow {
  PublishedLatency published;
  double simulatedMilliseconds = 0;
  double ratio() const { return simulatedMilliseconds / published.milliseconds; }
};

// Runs every published network once on its preset, in process, with timing.
hal::Result<std::vector<CalibrationRow>> calibrate();

// Runs `model` once on `npu`, in process, and returns its execution profile.
hal::Result<hal::ExecutionProfile> simulatedProfile(const std::string& model, const sim::NpuConfig& npu);
// The same profile's total cycles.
hal::Result<uint64_t> simulatedCycles(const std::string& model, const sim::NpuConfig& npu);

std::string calibrationTable(const std::vector<CalibrationRow>& rows);
// A self-contained page: the table and a log-log plot of simulated against published, one point
// per network, lines at 1x and at the ±25% band.
std::string calibrationHtml(const std::vector<CalibrationRow>& rows);

}  // namespace nnremote::benchmarks

#endif  // NNREMOTE_BENCHMARKS_CALIBRATION_H_
