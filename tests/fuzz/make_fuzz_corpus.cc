// Writes seed corpora for the fuzz targets from ../shared/conformance (never committed: the
// conformance data stays where it is):
//   OUT/wire/       one file per conformance model: its wire::Model and a wire::Request with its
//                   inputs, framed as wire_fuzzer reads them;
//   OUT/shared_queue/  the same requests as burst execute messages, framed for
//                   shared_queue_fuzzer;
//   OUT/cache/      each model's compilation cache as cachingDevice() writes it (the model
//                   cache without its seal, then the data cache), framed for cache_fuzzer;
//   OUT/model/      each wire::Model alone, for model_validation_fuzzer.
// usage: make_fuzz_corpus OUT [CONFORMANCE_DIR]
#include <sys/stat.h>

#include <cstdio>
#include <fstream>

#include "hal/model_builder.h"
#include "hal/compilation_cache.h"
#include "wire/conversions.h"
#include "conformance/cts_loader.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

using namespace nnremote;  // NOLINT: a tool

void writeFile(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// The model's compilation cache from fuzz::cachingDevice(), framed for cache_fuzzer; empty if
// the device does not prepare it.
std::string cacheSeed(const hal::Model& model) {
  const hal::CacheFile modelCache = fuzz::memoryCacheFile({}), dataCache = fuzz::memoryCacheFile({});
  auto prepared = fuzz::cachingDevice()->prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                                      hal::Priority::MEDIUM, std::nullopt, {modelCache}, {dataCache},
                                                      fuzz::cacheToken());
  if (!prepared.ok()) return {};
  auto sealed = hal::readCacheFile(modelCache, "model cache");
  auto data = hal::readCacheFile(dataCache, "data cache");
  if (!sealed.ok() || !data.ok() || sealed->size() < 32) return {};
  const uint32_t length = static_cast<uint32_t>(sealed->size() - 32);
  std::string framed(reinterpret_cast<const char*>(&length), 4);
  framed.append(sealed->begin(), sealed->begin() + length);
  framed.append(data->begin(), data->end());
  return framed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: make_fuzz_corpus OUT [CONFORMANCE_DIR]\n");
    return 2;
  }
  const std::string out = argv[1];
  const std::string conformance = argc > 2 ? argv[2] : conformance::defaultConformanceDirectory();
  if (conformance.empty()) {
    std::fprintf(stderr, "make_fuzz_corpus: ../shared/conformance is absent; give CONFORMANCE_DIR\n");
    return 1;
  }
  ::mkdir(out.c_str(), 0755);
  ::mkdir((out + "/wire").c_str(), 0755);
  ::mkdir((out + "/shared_queue").c_str(), 0755);
  ::mkdir((out + "/cache").c_str(), 0755);
  ::mkdir((out + "/model").c_str(), 0755);
  auto files = conformance::findSpecFiles(conformance);
  if (!files.ok()) {
    std::fprintf(stderr, "make_fuzz_corpus: %s\n", files.error().message.c_str());
    return 1;
  }
  int written = 0;
  for (const auto& file : *files) {
    auto cases = conformance::loadSpecFile(file, file);
    if (!cases.ok()) continue;
    for (const auto& testCase : *cases) {
      auto model = wire::toWire(testCase.model);
      if (!model.ok()) continue;
      std::vector<size_t> outputSizes;
      for (const auto& output : testCase.outputs) outputSizes.push_back(std::max<size_t>(output.data.size(), 1));
      auto io = hal::makeRequest(testCase.inputs, outputSizes);
      if (!io.ok()) continue;
      auto request = wire::toWire(io->request);
      if (!request.ok()) continue;
      const std::string modelBytes = model->SerializeAsString();
      const uint32_t length = static_cast<uint32_t>(modelBytes.size());
      std::string framed(reinterpret_cast<const char*>(&length), 4);
      framed += modelBytes + request->SerializeAsString();
      const std::string name = std::to_string(written);
      writeFile(out + "/wire/" + name, framed);
      writeFile(out + "/model/" + name, modelBytes);

      wire::BurstRequest burst;
      *burst.mutable_execute()->mutable_request() = *request;
      const std::string message = burst.SerializeAsString();
      const uint32_t declared = static_cast<uint32_t>(message.size());
      std::string queued(reinterpret_cast<const char*>(&declared), 4);
      queued += '\0' + message;
      writeFile(out + "/shared_queue/" + name, queued);
      if (const std::string cache = cacheSeed(testCase.model); !cache.empty()) writeFile(out + "/cache/" + name, cache);
      ++written;
    }
  }
  std::printf("make_fuzz_corpus: %d seeds in %s/wire, %s/shared_queue, %s/cache and %s/model\n", written,
              out.c_str(), out.c_str(), out.c_str(), out.c_str());
  return written > 0 ? 0 : 1;
}
