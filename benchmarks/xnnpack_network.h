// The same network on XNNPACK, for side-by-side speed comparisons with the simulator's
// functional path. Translates a hal::Model made of the operations MobileNet-style networks and
// the hot-kernel benchmarks use (CONV_2D and DEPTHWISE_CONV_2D, AVERAGE_POOL_2D and MAX_POOL_2D,
// all with implicit padding and fused activation; ADD of same-shaped operands, FULLY_CONNECTED,
// RESHAPE, SOFTMAX), float32 or quant8, into XNNPACK operators that share the model's weights,
// and runs them single-threaded.
#ifndef NNREMOTE_BENCHMARKS_XNNPACK_NETWORK_H_
#define NNREMOTE_BENCHMARKS_XNNPACK_NETWORK_H_

#include <memory>
#include <string>
#include <vector>

#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::benchmarks {

class XnnpackNetwork {
 public:
  // Fails with a message naming the first operation XNNPACK cannot run as given.
  static hal::Result<std::unique_ptr<XnnpackNetwork>> create(const hal::Model& model);
  ~XnnpackNetwork();

  // Runs the network on `input` (the model's only input, as bytes) and returns the output bytes.
  hal::Result<std::vector<uint8_t>> run(const std::vector<uint8_t>& input);

 private:
  struct Step;
  XnnpackNetwork() = default;
  std::vector<Step> steps_;
  std::vector<std::vector<uint8_t>> buffers_;  // one per model operand
  uint32_t inputOperand_ = 0, outputOperand_ = 0;
};

}  // namespace nnremote::benchmarks

#endif  // NNREMOTE_BENCHMARKS_XNNPACK_NETWORK_H_
