// Graph dumps: DOT names every operation and operand edge; the HTML page draws one box per
// operation, shows costs where given, and escapes what it prints.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hal/graph_dump.h"
#include "hal/model_builder.h"

namespace nnremote::hal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// in -> RELU -> ADD(relu, in) -> out: a diamond, so the ADD sits one level below the RELU.
Model diamond() {
  ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {1, 4});
  const uint32_t relu = b.addTemporary(OperandType::TENSOR_FLOAT32, {1, 4});
  b.addOperation(OperationType::RELU, {in}, {relu});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {1, 4});
  b.addOperation(OperationType::ADD, {relu, in, b.addInt32(0)}, {out});
  return b.build();
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(GraphDumpTest, DotHasEveryOperationAndEdge) {
  const std::string dot = modelToDot(diamond(), "diamond");
  EXPECT_THAT(dot, HasSubstr("digraph \"diamond\""));
  EXPECT_THAT(dot, HasSubstr("op0 [shape=box style=filled fillcolor=\"#dbe9f6\" label=\"#0 RELU\"]"));
  EXPECT_THAT(dot, HasSubstr("label=\"#1 ADD\""));
  EXPECT_THAT(dot, HasSubstr("op0 -> op1 [label=\"TENSOR_FLOAT32 [1, 4]\"]"));
  EXPECT_THAT(dot, HasSubstr("operand0 -> op1"));
  EXPECT_THAT(dot, HasSubstr("op1 -> output"));
  EXPECT_THAT(dot, Not(HasSubstr("INT32\\n")));  // scalar parameters are not nodes
}

TEST(GraphDumpTest, HtmlDrawsEachOperationWithItsCostAndEscapes) {
  const std::string html = modelToHtml(diamond(), "a<b>", {12.5, std::nullopt});
  EXPECT_EQ(count(html, "<g class=\"operation\">"), 2u);
  EXPECT_EQ(count(html, "<line class=\"edge\""), 1u);  // RELU -> ADD; inputs are not boxes
  EXPECT_EQ(count(html, "class=\"cost\""), 1u);
  EXPECT_THAT(html, HasSubstr("12.5 µs"));
  EXPECT_THAT(html, HasSubstr("<title>a&lt;b&gt;</title>"));
  EXPECT_THAT(html, Not(HasSubstr("a<b>")));
  // The ADD is drawn a row below the RELU.
  EXPECT_THAT(html, HasSubstr("<rect x=\"20\" y=\"20\""));
  EXPECT_THAT(html, HasSubstr("<rect x=\"20\" y=\"106\""));
  // Operand table: every operand, with its lifetime.
  EXPECT_EQ(count(html, "SUBGRAPH_INPUT"), 1u);
  EXPECT_THAT(html, HasSubstr("TENSOR_FLOAT32 [1, 4]"));
}

}  // namespace
}  // namespace nnremote::hal
