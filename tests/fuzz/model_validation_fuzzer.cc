// Fuzz target: model validation, structure-aware. The input is one wire::Model (as a client
// sends it in PrepareModel); under libFuzzer wire_model_mutator.cc changes the model a field at a
// time (a value set to a boundary, an element added, removed or duplicated), so nearly every
// input still parses and reaches validateModel and the operation-signature table rather than the
// protobuf parser. What validation accepts goes on to getSupportedOperations, preparation and an
// execution on the simulator: no kernel may read anything the table did not check.
// Seeds: every conformance model (make_fuzz_corpus writes them to OUT/model).
#include "hal/validation.h"
#include "wire/conversions.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnremote;  // NOLINT: a fuzz target
  wire::Model wireModel;
  if (!wireModel.ParseFromArray(data, static_cast<int>(size))) return 0;
  auto model = wire::fromWire(wireModel, wire::resolveInlineOnly);
  if (!model.ok() || !hal::validateModel(*model, /*allowPointers=*/false).ok()) return 0;
  (void)hal::minimumFeatureLevel(*model);
  (void)fuzz::smallDevice()->getSupportedOperations(*model);
  fuzz::prepareAndExecute(*model, nullptr);
  return 0;
}
