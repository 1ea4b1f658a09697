// Builds an NNAPI model only through the NDK's ANeuralNetworksModel_* calls, from a hal::Model
// (a conformance case, or a fuzzer's model), the way a program would: every operand, value,
// per-channel quantization, extension type, referenced model and operation in turn.
#ifndef NNREMOTE_TESTS_RUNTIME_C_API_MODEL_H_
#define NNREMOTE_TESTS_RUNTIME_C_API_MODEL_H_

#include <android/NeuralNetworks.h>

#include <memory>
#include <string>
#include <vector>

#include "hal/types.h"

namespace nnremote::testing {

// The C models of one hal::Model: main first, then one per referenced subgraph. Frees them all.
class CApiModel {
 public:
  // Builds and finishes the models; the result code of the first call that failed, and which,
  // in `failure`. `model` must outlive this (large constants are referenced, not copied).
  int build(const hal::Model& model, std::string* failure);
  ~CApiModel();

  ANeuralNetworksModel* main() const { return models_.empty() ? nullptr : models_.front(); }

 private:
  int buildSubgraph(const hal::Model& model, const hal::Model::Subgraph& subgraph, ANeuralNetworksModel* out,
                    std::string* failure);
  std::vector<ANeuralNetworksModel*> models_;
};

}  // namespace nnremote::testing

#endif  // NNREMOTE_TESTS_RUNTIME_C_API_MODEL_H_
