// One AOSP CTS/VTS generated test model, converted to HAL types: the model, the request inputs,
// and the golden outputs.
#ifndef NNREMOTE_CONFORMANCE_CTS_TEST_CASE_H_
#define NNREMOTE_CONFORMANCE_CTS_TEST_CASE_H_

#include <string>
#include <vector>

#include "hal/types.h"

namespace nnremote::conformance {

struct GoldenOutput {
  hal::OperandType type = hal::OperandType::TENSOR_FLOAT32;
  std::vector<uint32_t> dimensions;
  float scale = 0.0f;
  int32_t zeroPoint = 0;
  bool isIgnored = false;
  std::vector<uint8_t> data;
};

struct CtsTestCase {
  std::string file;  // e.g. "V1_0/add.json"
  std::string name;  // the registered model name, e.g. "add_all_inputs_as_internal"
  hal::Model model;
  std::vector<std::vector<uint8_t>> inputs;  // bytes for each main input, in order
  std::vector<GoldenOutput> outputs;          // golden values for each main output, in order
  bool expectFailure = false;
  bool isRelaxed = false;
  float multinomialTolerance = 0.0f;

  std::string fullName() const { return file + ":" + name; }
};

}  // namespace nnremote::conformance

#endif  // NNREMOTE_CONFORMANCE_CTS_TEST_CASE_H_
