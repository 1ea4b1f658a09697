#include "tools/scalesim_compat.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "drivers/sim/timing/operation_timing.h"

namespace nnremote::tools {
namespace {

std::vector<std::string> splitCsv(const std::string& line) {
  std::vector<std::string> fields;
  for (absl::string_view field : absl::StrSplit(line, ',')) {
    fields.emplace_back(absl::StripAsciiWhitespace(field));
  }
  while (!fields.empty() && fields.back().empty()) fields.pop_back();  // SCALE-Sim's trailing comma
  return fields;
}

hal::Result<uint64_t> positive(const std::string& text, const std::string& where) {
  try {
    size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (used == text.size() && value > 0) return static_cast<uint64_t>(value);
  } catch (...) {
  }
  return hal::invalidArgument() << where << ": '" << text << "' is not a positive integer";
}

}  // namespace

hal::Result<sim::NpuConfig> parseScaleSimConfig(const std::string& text, const std::string& origin) {
  std::map<std::string, std::string> values;
  std::stringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    line = std::string(absl::StripAsciiWhitespace(line));
    if (line.empty() || line[0] == '#' || line[0] == ';' || line[0] == '[') continue;
    const size_t separator = line.find_first_of(":=");
    if (separator == std::string::npos) {
      return hal::invalidArgument() << origin << ":" << number << ": expected 'Key : value'";
    }
    values[std::string(absl::StripAsciiWhitespace(line.substr(0, separator)))] =
        std::string(absl::StripAsciiWhitespace(line.substr(separator + 1)));
  }
  auto number_of = [&](const char* key) -> hal::Result<uint64_t> {
    const auto it = values.find(key);
    if (it == values.end()) return hal::invalidArgument() << origin << ": " << key << " is missing";
    return positive(it->second, origin + ": " + key);
  };
  sim::NpuConfig npu;
  npu.set_vendor("scalesim");
  npu.set_device_name(values.count("run_name") ? values["run_name"] : "config");
  npu.set_clock_mhz(1000);
  npu.set_cores(1);
  NN_ASSIGN_OR_RETURN(const uint64_t rows, number_of("ArrayHeight"));
  NN_ASSIGN_OR_RETURN(const uint64_t columns, number_of("ArrayWidth"));
  NN_ASSIGN_OR_RETURN(const uint64_t ifmap, number_of("IfmapSramSzkB"));
  NN_ASSIGN_OR_RETURN(const uint64_t filter, number_of("FilterSramSzkB"));
  NN_ASSIGN_OR_RETURN(const uint64_t ofmap, number_of("OfmapSramSzkB"));
  npu.mutable_systolic_array()->set_rows(rows);
  npu.mutable_systolic_array()->set_columns(columns);
  npu.mutable_sram()->set_ifmap_kib(ifmap);
  npu.mutable_sram()->set_filter_kib(filter);
  npu.mutable_sram()->set_ofmap_kib(ofmap);
  std::string dataflow = values.count("Dataflow") ? values["Dataflow"] : "os";
  std::transform(dataflow.begin(), dataflow.end(), dataflow.begin(), ::tolower);
  if (dataflow == "os") {
    npu.mutable_systolic_array()->set_dataflow(sim::OUTPUT_STATIONARY);
  } else if (dataflow == "ws") {
    npu.mutable_systolic_array()->set_dataflow(sim::WEIGHT_STATIONARY);
  } else if (dataflow == "is") {
    npu.mutable_systolic_array()->set_dataflow(sim::INPUT_STATIONARY);
  } else {
    return hal::invalidArgument() << origin << ": Dataflow '" << dataflow << "' is not os, ws or is";
  }
  const std::string mode = values.count("InterfaceBandwidth") ? values["InterfaceBandwidth"] : "CALC";
  if (mode == "USER") {
    NN_ASSIGN_OR_RETURN(const uint64_t bandwidth, number_of("Bandwidth"));
    npu.mutable_dram()->set_bytes_per_cycle(static_cast<double>(bandwidth));
  } else if (mode != "CALC") {
    return hal::invalidArgument() << origin << ": InterfaceBandwidth '" << mode << "' is not CALC or USER";
  }
  npu.mutable_vector_unit()->set_lanes(static_cast<uint32_t>(columns));
  npu.mutable_vector_unit()->set_default_cycles_per_element(1);
  npu.set_scalesim_off_by_one(true);
  return npu;
}

hal::Result<std::vector<ScaleSimLayer>> parseScaleSimTopology(const std::string& text, bool gemm,
                                                              const std::string& origin) {
  std::vector<ScaleSimLayer> layers;
  std::stringstream lines(text);
  std::string line;
  int number = 0;
  const size_t expected = gemm ? 4 : 8;
  while (std::getline(lines, line)) {
    ++number;
    const std::vector<std::string> fields = splitCsv(line);
    if (fields.empty()) continue;
    if (fields.size() < expected) {
      return hal::invalidArgument() << origin << ":" << number << ": expected " << expected
                                    << " fields (" << (gemm ? "name, M, N, K" : "name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, Channels, Num Filter, Strides")
                                    << "), got " << fields.size();
    }
    if (number == 1 && !std::isdigit(static_cast<unsigned char>(fields[1][0]))) continue;  // header
    std::vector<uint64_t> v;
    for (size_t i = 1; i < expected; ++i) {
      NN_ASSIGN_OR_RETURN(const uint64_t value,
                          positive(fields[i], origin + ":" + std::to_string(number)));
      v.push_back(value);
    }
    ScaleSimLayer layer;
    layer.name = fields[0];
    layer.gemm.inputElementBytes = layer.gemm.outputElementBytes = 1;
    if (gemm) {
      layer.gemm.m = v[0], layer.gemm.n = v[1], layer.gemm.k = v[2];
    } else {
      const uint64_t h = v[0], w = v[1], fh = v[2], fw = v[3], channels = v[4], filters = v[5], s = v[6];
      if (fh > h || fw > w) {
        return hal::invalidArgument() << origin << ":" << number << ": the filter is larger than the ifmap";
      }
      const uint64_t outH = (h - fh + s + s - 1) / s, outW = (w - fw + s + s - 1) / s;
      layer.gemm.n = filters;
      if (__builtin_mul_overflow(outH, outW, &layer.gemm.m) || __builtin_mul_overflow(fh, fw, &layer.gemm.k) ||
          __builtin_mul_overflow(layer.gemm.k, channels, &layer.gemm.k)) {
        return hal::invalidArgument() << origin << ":" << number << ": the layer is too large to price";
      }
    }
    // The timing model's counts (cycles, bytes moved) grow with M x N x K; far past any real
    // layer (a large convolution is some 2^33 multiply-accumulates), they would overflow.
    constexpr uint64_t kMostMacs = uint64_t{1} << 50;
    uint64_t macs = 0;
    if (__builtin_mul_overflow(layer.gemm.m, layer.gemm.n, &macs) ||
        __builtin_mul_overflow(macs, layer.gemm.k, &macs) || macs > kMostMacs) {
      return hal::invalidArgument() << origin << ":" << number
                                    << ": the layer is too large to price: M x N x K = " << layer.gemm.m << " x "
                                    << layer.gemm.n << " x " << layer.gemm.k << " multiply-accumulates, past 2^50";
    }
    layers.push_back(layer);
  }
  if (layers.empty()) return hal::invalidArgument() << origin << ": no layers";
  return layers;
}

std::string computeReport(const std::vector<ScaleSimLayer>& layers, const sim::NpuConfig& npu) {
  std::ostringstream out;
  out << "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %,\n";
  for (size_t i = 0; i < layers.size(); ++i) {
    sim::OperationWork work;
    work.gemms.push_back(layers[i].gemm);
    const hal::OperationProfile p = sim::estimateOperation(work, hal::OperationType::CONV_2D, npu);
    char row[256];
    std::snprintf(row, sizeof(row), "%zu, %llu, %llu, %.4f, %.4f, %.4f,\n", i,
                  static_cast<unsigned long long>(p.totalCycles),
                  static_cast<unsigned long long>(p.stallCycles), p.overallUtilization,
                  p.mappingEfficiency, p.computeUtilization);
    out << row;
  }
  return out.str();
}

}  // namespace nnremote::tools
