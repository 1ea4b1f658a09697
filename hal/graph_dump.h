// A model's main graph as Graphviz DOT or as a self-contained HTML page (inline SVG, no
// scripts): operations with their types and output shapes, operands with types, shapes and
// lifetimes, and each operation's cost when the caller knows it. For `nnremote graph` and
// npu_emulator --dump-graphs, after the NN driver guide's graph dumps.
#ifndef NNREMOTE_HAL_GRAPH_DUMP_H_
#define NNREMOTE_HAL_GRAPH_DUMP_H_

#include <optional>
#include <string>
#include <vector>

#include "hal/types.h"

namespace nnremote::hal {

// Operations are boxes, model inputs, outputs and constants are ellipses, and each edge is an
// operand labelled with its type and shape.
std::string modelToDot(const Model& model, const std::string& title);

// `costMicroseconds[i]`, when present, is operation i's device time.
std::string modelToHtml(const Model& model, const std::string& title,
                        const std::vector<std::optional<double>>& costMicroseconds = {});

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_GRAPH_DUMP_H_
