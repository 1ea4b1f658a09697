// Fuzz target: what the emulator does with a PrepareModel and an Execute call's bytes. Decodes
// a wire::Model and a wire::Request (inline memories only, as from an unknown client), validates
// them the way AcceleratorService does, prepares the model on the simulator and executes it.
//
// Input: a 4-byte little-endian length L, L bytes of wire::Model, then wire::Request bytes.
// make_fuzz_corpus writes seeds in this form from ../shared/conformance.
#include <cstring>

#include "hal/validation.h"
#include "wire/conversions.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nnremote;  // NOLINT: a fuzz target
  if (size < 4) return 0;
  uint32_t modelBytes = 0;
  std::memcpy(&modelBytes, data, 4);
  if (modelBytes > size - 4) return 0;
  wire::Model wireModel;
  if (!wireModel.ParseFromArray(data + 4, static_cast<int>(modelBytes))) return 0;
  wire::Request wireRequest;
  if (!wireRequest.ParseFromArray(data + 4 + modelBytes, static_cast<int>(size - 4 - modelBytes))) return 0;

  auto model = wire::fromWire(wireModel, wire::resolveInlineOnly);
  if (!model.ok() || !hal::validateModel(*model, /*allowPointers=*/false).ok()) return 0;
  auto request = wire::fromWire(wireRequest, wire::resolveInlineOnly);
  if (!request.ok() || !hal::validateRequestForModel(*request, *model, /*allowPointers=*/false).ok()) {
    fuzz::prepareAndExecute(*model, nullptr);  // the model alone is worth running
    return 0;
  }
  fuzz::prepareAndExecute(*model, &*request);
  return 0;
}
