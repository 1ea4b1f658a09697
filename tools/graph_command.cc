// nnremote graph: a model's graph as Graphviz DOT or an HTML page. The model is one of a
// conformance-format file's (--cases=FILE [--model=NAME]) or a built-in (--model=NAME). The HTML
// shows each operation's device time on the simulated NPU (--config, default edge16), from one
// execution of the model's own inputs in process.
#include "tools/graph_command.h"

#include <iostream>

#include "emulator/simulated_npus.h"
#include "hal/graph_dump.h"
#include "hal/model_builder.h"
#include "tools/command_support.h"
#include "tools/model_subject.h"
#include "tools/nnremote_flags.h"
#include "tools/output_file.h"

namespace nnremote::tools {
namespace {

// Each operation's device time on `npu`, from the execution profile of one run; empty if the
// model does not run there (the page is still drawn, without costs).
std::vector<std::optional<double>> operationCosts(const ModelSubject& subject, const sim::NpuConfig& npu) {
  const auto device = emulator::createSimulatedNpu(npu);
  auto prepared = device->prepareModel(subject.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                       hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
  if (!prepared.ok()) return {};
  auto io = hal::makeRequest(subject.inputs, subject.outputSizes);
  if (!io.ok()) return {};
  auto outcome = (*prepared)->execute(io->request, hal::MeasureTiming::YES, std::nullopt, std::nullopt);
  if (!outcome.ok() || !outcome->profile || outcome->profile->clockHz <= 0) return {};
  std::vector<std::optional<double>> costs(subject.model.main.operations.size());
  for (const auto& operation : outcome->profile->operations) {
    if (operation.operationIndex < costs.size()) {
      costs[operation.operationIndex] = operation.totalCycles / outcome->profile->clockHz * 1e6;
    }
  }
  return costs;
}

}  // namespace

int runGraph() {
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "dot" && format != "html") {
    std::cerr << "nnremote graph: --format must be dot or html, not '" << format << "'\n";
    return 2;
  }
  auto output = OutputFile::open("output", absl::GetFlag(FLAGS_output));
  if (!output.ok()) {
    std::cerr << "nnremote graph: " << output.error().message << "\n";
    return 1;
  }
  auto subject = modelSubjectFromFlags("mobilenet");
  if (!subject.ok()) {
    std::cerr << "nnremote graph: " << subject.error().message << "\n";
    return 1;
  }
  std::string text;
  if (format == "dot") {
    text = hal::modelToDot(subject->model, subject->name);
  } else {
    auto npus = sim::npuConfigsFromList(absl::GetFlag(FLAGS_config).empty() ? "edge16" : absl::GetFlag(FLAGS_config));
    if (!npus.ok() || npus->empty()) {
      std::cerr << "nnremote graph: --config: " << (npus.ok() ? "no NPU" : npus.error().message) << "\n";
      return 2;
    }
    text = hal::modelToHtml(subject->model, subject->name + " (device time on " + sim::deviceName(npus->front()) + ")",
                            operationCosts(*subject, npus->front()));
  }
  if (!output->wanted()) {
    std::cout << text;
    return 0;
  }
  if (auto written = output->write(text); !written.ok()) {
    std::cerr << "nnremote graph: " << written.error().message << "\n";
    return 1;
  }
  std::cout << "wrote " << output->path() << "\n";
  return 0;
}

}  // namespace nnremote::tools
