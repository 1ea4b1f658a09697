#include "hal/graph_dump.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <sstream>

#include "hal/operand_types.h"
#include "hal/text_escape.h"

namespace nnremote::hal {
namespace {

// "TENSOR_FLOAT32 [1, 224, 224, 3]", with the quantization when there is one.
std::string describe(const Operand& operand) {
  std::ostringstream text;
  text << toString(operand.type);
  if (isTensor(operand.type)) text << " " << toString(operand.dimensions);
  if (operand.scale != 0.0f) text << " scale " << operand.scale << " zp " << operand.zeroPoint;
  return text.str();
}

bool isConstant(const Operand& operand) {
  return operand.lifetime == Operand::LifeTime::CONSTANT_COPY ||
         operand.lifetime == Operand::LifeTime::CONSTANT_REFERENCE || operand.lifetime == Operand::LifeTime::POINTER;
}

std::string counted(size_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

// Which operation writes each operand (none for inputs and constants).
std::map<uint32_t, size_t> producers(const Model::Subgraph& graph) {
  std::map<uint32_t, size_t> producer;
  for (size_t i = 0; i < graph.operations.size(); ++i) {
    for (uint32_t output : graph.operations[i].outputs) producer[output] = i;
  }
  return producer;
}

// Each operation's depth: one more than the deepest operation that feeds it.
std::vector<size_t> levels(const Model::Subgraph& graph, const std::map<uint32_t, size_t>& producer) {
  std::vector<size_t> level(graph.operations.size(), 0);
  for (size_t i = 0; i < graph.operations.size(); ++i) {  // operations are in execution order
    for (uint32_t input : graph.operations[i].inputs) {
      if (auto found = producer.find(input); found != producer.end() && found->second < i) {
        level[i] = std::max(level[i], level[found->second] + 1);
      }
    }
  }
  return level;
}

}  // namespace

std::string modelToDot(const Model& model, const std::string& title) {
  const auto& graph = model.main;
  const auto producer = producers(graph);
  std::ostringstream dot;
  dot << "digraph \"" << xmlEscape(title) << "\" {\n  rankdir=TB;\n  node [fontname=\"sans-serif\" fontsize=10];\n";
  for (size_t i = 0; i < graph.operations.size(); ++i) {
    dot << "  op" << i << " [shape=box style=filled fillcolor=\"#dbe9f6\" label=\"#" << i << " "
        << toString(graph.operations[i].type) << "\"];\n";
  }
  // Operands nothing writes (inputs and constants) get a node of their own; so do outputs.
  for (size_t i = 0; i < graph.operations.size(); ++i) {
    for (uint32_t input : graph.operations[i].inputs) {
      const Operand& operand = graph.operands[input];
      if (producer.count(input) != 0) {
        dot << "  op" << producer.at(input) << " -> op" << i << " [label=\"" << xmlEscape(describe(operand)) << "\"];\n";
        continue;
      }
      if (isConstant(operand) && !isTensor(operand.type)) continue;  // scalar parameters stay in the table
      dot << "  operand" << input << " [shape=ellipse label=\"" << input << ": " << xmlEscape(describe(operand))
          << "\\n" << toString(operand.lifetime) << "\"];\n  operand" << input << " -> op" << i << ";\n";
    }
  }
  for (uint32_t output : graph.outputIndexes) {
    dot << "  output" << output << " [shape=ellipse style=bold label=\"output " << output << ": "
        << xmlEscape(describe(graph.operands[output])) << "\"];\n";
    if (producer.count(output) != 0) dot << "  op" << producer.at(output) << " -> output" << output << ";\n";
  }
  dot << "}\n";
  return dot.str();
}

std::string modelToHtml(const Model& model, const std::string& title,
                        const std::vector<std::optional<double>>& costMicroseconds) {
  const auto& graph = model.main;
  const auto producer = producers(graph);
  const auto level = levels(graph, producer);
  // Layered layout: one row per level, operations side by side in it.
  constexpr int kBoxWidth = 240, kBoxHeight = 52, kColumn = 270, kRow = 86, kMargin = 20;
  std::map<size_t, int> usedInRow;
  std::vector<std::pair<int, int>> at(graph.operations.size());
  int columns = 1;
  size_t rows = 0;
  for (size_t i = 0; i < graph.operations.size(); ++i) {
    const int column = usedInRow[level[i]]++;
    columns = std::max(columns, column + 1);
    rows = std::max(rows, level[i] + 1);
    at[i] = {kMargin + column * kColumn, kMargin + static_cast<int>(level[i]) * kRow};
  }
  double totalCost = 0;
  for (const auto& cost : costMicroseconds) totalCost += cost.value_or(0);

  std::ostringstream html;
  html << std::fixed << std::setprecision(1);
  html << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" << xmlEscape(title) << "</title>\n<style>\n"
       << "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;font-size:12px;margin-top:8px}\n"
       << "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}g.operation rect{fill:#dbe9f6;stroke:#4a7ab5}\n"
       << "g.operation text{font-size:12px}line.edge{stroke:#888;marker-end:url(#arrow)}\n</style></head><body>\n"
       << "<h1>" << xmlEscape(title) << "</h1>\n<p>" << counted(graph.operations.size(), "operation") << ", "
       << counted(graph.operands.size(), "operand") << ", " << counted(graph.inputIndexes.size(), "input") << ", "
       << counted(graph.outputIndexes.size(), "output")
       << (model.referenced.empty() ? "" : ", " + std::to_string(model.referenced.size()) + " referenced subgraphs (not drawn)");
  if (totalCost > 0) html << "; device time " << totalCost << " µs";
  html << ".</p>\n<svg id=\"graph\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << 2 * kMargin + columns * kColumn
       << "\" height=\"" << 2 * kMargin + static_cast<int>(rows) * kRow << "\" font-family=\"sans-serif\">\n"
       << "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" markerHeight=\"6\" "
       << "orient=\"auto\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#888\"/></marker></defs>\n";
  for (size_t i = 0; i < graph.operations.size(); ++i) {
    for (uint32_t input : graph.operations[i].inputs) {
      auto found = producer.find(input);
      if (found == producer.end()) continue;
      const auto [fromX, fromY] = at[found->second];
      const auto [toX, toY] = at[i];
      html << "<line class=\"edge\" x1=\"" << fromX + kBoxWidth / 2 << "\" y1=\"" << fromY + kBoxHeight << "\" x2=\""
           << toX + kBoxWidth / 2 << "\" y2=\"" << toY << "\"><title>operand " << input << ": "
           << xmlEscape(describe(graph.operands[input])) << "</title></line>\n";
    }
  }
  for (size_t i = 0; i < graph.operations.size(); ++i) {
    const auto& operation = graph.operations[i];
    const auto [x, y] = at[i];
    const Operand& output = graph.operands[operation.outputs.empty() ? 0 : operation.outputs[0]];
    std::ostringstream tip;
    tip << "#" << i << " " << toString(operation.type) << "\ninputs:";
    for (uint32_t input : operation.inputs) tip << "\n  " << input << ": " << describe(graph.operands[input]);
    tip << "\noutputs:";
    for (uint32_t out : operation.outputs) tip << "\n  " << out << ": " << describe(graph.operands[out]);
    html << "<g class=\"operation\"><title>" << xmlEscape(tip.str()) << "</title><rect x=\"" << x << "\" y=\"" << y
         << "\" width=\"" << kBoxWidth << "\" height=\"" << kBoxHeight << "\" rx=\"4\"/>\n<text x=\"" << x + 8
         << "\" y=\"" << y + 17 << "\" font-weight=\"bold\">#" << i << " " << toString(operation.type) << "</text>\n"
         << "<text x=\"" << x + 8 << "\" y=\"" << y + 32 << "\">→ " << xmlEscape(describe(output)) << "</text>\n";
    if (i < costMicroseconds.size() && costMicroseconds[i].has_value()) {
      html << "<text class=\"cost\" x=\"" << x + 8 << "\" y=\"" << y + 46 << "\" fill=\"#8a3b00\">" << *costMicroseconds[i]
           << " µs</text>\n";
    }
    html << "</g>\n";
  }
  html << "</svg>\n<h2>Operations</h2>\n<table id=\"operations\"><tr><th>#</th><th>type</th><th>inputs</th>"
       << "<th>outputs</th><th>device µs</th></tr>\n";
  const auto list = [](const std::vector<uint32_t>& operands) {
    std::ostringstream text;
    for (size_t k = 0; k < operands.size(); ++k) text << (k ? ", " : "") << operands[k];
    return text.str();
  };
  for (size_t i = 0; i < graph.operations.size(); ++i) {
    html << "<tr><td>" << i << "</td><td>" << toString(graph.operations[i].type) << "</td><td>"
         << list(graph.operations[i].inputs) << "</td><td>" << list(graph.operations[i].outputs) << "</td><td>";
    if (i < costMicroseconds.size() && costMicroseconds[i].has_value()) html << *costMicroseconds[i];
    html << "</td></tr>\n";
  }
  html << "</table>\n<h2>Operands</h2>\n<table id=\"operands\"><tr><th>#</th><th>type and shape</th>"
       << "<th>lifetime</th></tr>\n";
  for (size_t i = 0; i < graph.operands.size(); ++i) {
    html << "<tr><td>" << i << "</td><td>" << xmlEscape(describe(graph.operands[i])) << "</td><td>"
         << toString(graph.operands[i].lifetime) << "</td></tr>\n";
  }
  html << "</table>\n</body></html>\n";
  return html.str();
}

}  // namespace nnremote::hal
