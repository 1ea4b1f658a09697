#include "conformance/cts_runner.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "hal/compilation_cache.h"
#include "hal/execution_adapters.h"
#include "hal/float16.h"
#include "hal/model_builder.h"
#include "hal/operand_types.h"
#include "conformance/cts_loader.h"

namespace nnremote::conformance {
namespace {

using hal::OperandType;


bool hasFloat16Operand(const hal::Model& model) {
  for (const auto& operand : model.main.operands) {
    if (operand.type == OperandType::TENSOR_FLOAT16 || operand.type == OperandType::FLOAT16) {
      return true;
    }
  }
  return false;
}

template <typename T>
T load(const std::vector<uint8_t>& bytes, size_t i) {
  T value;
  std::memcpy(&value, bytes.data() + i * sizeof(T), sizeof(T));
  return value;
}

// Reads element i as a double, for the integer and float types the CTS compares.
double elementAt(OperandType type, const std::vector<uint8_t>& bytes, size_t i) {
  switch (type) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::FLOAT32: return load<float>(bytes, i);
    case OperandType::TENSOR_FLOAT16:
    case OperandType::FLOAT16: return hal::halfToFloat(load<uint16_t>(bytes, i));
    case OperandType::TENSOR_INT32:
    case OperandType::INT32: return load<int32_t>(bytes, i);
    case OperandType::UINT32: return load<uint32_t>(bytes, i);
    case OperandType::TENSOR_QUANT16_SYMM: return load<int16_t>(bytes, i);
    case OperandType::TENSOR_QUANT16_ASYMM: return load<uint16_t>(bytes, i);
    case OperandType::TENSOR_QUANT8_ASYMM: return load<uint8_t>(bytes, i);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL: return load<int8_t>(bytes, i);
    default: return load<uint8_t>(bytes, i);  // BOOL, TENSOR_BOOL8
  }
}

struct Tolerance {
  double atol = 0.0, rtol = 0.0;
};

Tolerance toleranceFor(const CtsTestCase& testCase, OperandType type) {
  const bool relaxedOrHalf = testCase.isRelaxed || hasFloat16Operand(testCase.model);
  switch (type) {
    case OperandType::TENSOR_FLOAT32:
    case OperandType::FLOAT32:
      if (relaxedOrHalf) return {5.0 * std::ldexp(1.0, -10), 5.0 * std::ldexp(1.0, -10)};
      return {1e-5, 5.0 * std::ldexp(1.0, -23)};
    case OperandType::TENSOR_FLOAT16:
    case OperandType::FLOAT16:
      return {5.0 * std::ldexp(1.0, -10), 5.0 * std::ldexp(1.0, -10)};
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
      return {testCase.name.find("mobilenet") != std::string::npos ? 3.0 : 1.0, 0.0};
    case OperandType::TENSOR_INT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::TENSOR_QUANT16_SYMM:
    case OperandType::TENSOR_QUANT16_ASYMM:
      return {1.0, 0.0};
    default:
      return {0.0, 0.0};  // booleans are exact
  }
}

// The CTS models' loops finish in microseconds, and the infinite-loop models must run into the
// timeout; a short one keeps the run fast (the HAL default is 2 s).
constexpr hal::Duration kLoopTimeout = std::chrono::milliseconds(200);

}  // namespace

hal::Result<hal::ExecutionOutcome> executeWith(const hal::SharedPreparedModel& preparedModel,
                                               const hal::Request& request, Executor executor) {
  const hal::IPreparedModel& prepared = *preparedModel;
  switch (executor) {
    case Executor::ASYNC:
      return hal::executeAsync(preparedModel, request, hal::MeasureTiming::NO, std::nullopt, kLoopTimeout).get();
    case Executor::REUSABLE: {
      NN_ASSIGN_OR_RETURN(hal::SharedExecution execution,
                          prepared.createReusableExecution(request, hal::MeasureTiming::NO, kLoopTimeout));
      // Computed twice: a reusable execution must give the same answer every time.
      NN_RETURN_IF_ERROR(execution->compute(std::nullopt).status());
      return execution->compute(std::nullopt);
    }
    case Executor::BURST: {
      NN_ASSIGN_OR_RETURN(hal::SharedBurst burst, prepared.configureExecutionBurst());
      std::vector<hal::IBurst::OptionalCacheHold> holds;
      for (const auto& pool : request.pools) {
        if (const auto* memory = std::get_if<hal::SharedMemory>(&pool)) holds.push_back(burst->cacheMemory(*memory));
      }
      return burst->execute(request, hal::MeasureTiming::NO, std::nullopt, kLoopTimeout);
    }
    case Executor::FENCED: {
      const hal::SyncFence ready = hal::SyncFence::create();
      ready.signal();
      NN_ASSIGN_OR_RETURN(auto fenced, prepared.executeFenced(request, {ready}, hal::MeasureTiming::NO,
                                                              std::nullopt, kLoopTimeout, std::nullopt));
      const bool signaled = fenced.first.wait(std::nullopt) == hal::SyncFence::State::SIGNALED;
      // A failed execution's error, as its callback tells it.
      NN_RETURN_IF_ERROR(fenced.second().status());
      if (!signaled) {
        return hal::makeError(hal::ErrorStatus::GENERAL_FAILURE)
               << "the execution's fence signaled an error, but its callback reported none";
      }
      // Fenced executions report no output shapes: their outputs are fully specified.
      return hal::ExecutionOutcome{};
    }
    case Executor::SYNC:
      break;
  }
  return prepared.execute(request, hal::MeasureTiming::NO, std::nullopt, kLoopTimeout);
}

hal::Result<Executor> executorFromName(const std::string& name) {
  if (name == "sync") return Executor::SYNC;
  if (name == "async") return Executor::ASYNC;
  if (name == "reusable") return Executor::REUSABLE;
  if (name == "burst") return Executor::BURST;
  if (name == "fenced") return Executor::FENCED;
  return hal::invalidArgument() << "--executor must be sync, async, reusable, burst or fenced, not '"
                                << name << "'";
}

hal::Result<PoolMemory> poolMemoryFromName(const std::string& name) {
  if (name == "bytes") return PoolMemory::BYTES;
  if (name == "shm") return PoolMemory::SHARED;
  if (name == "device") return PoolMemory::DEVICE;
  return hal::invalidArgument() << "--memory must be bytes, shm or device, not '" << name << "'";
}

// RANDOM_MULTINOMIAL is checked as the CTS does: per batch, the histogram of the drawn classes
// must match softmax(logits) within the model's tolerance, class by class.
std::string compareMultinomial(const CtsTestCase& testCase, const std::vector<uint8_t>& actual) {
  const hal::Operand& logits = testCase.model.main.operands[testCase.model.main.inputIndexes[0]];
  const GoldenOutput& golden = testCase.outputs[0];
  if (logits.dimensions.size() != 2 || golden.dimensions.size() != 2) return "logits and samples must have rank 2";
  const uint32_t batches = logits.dimensions[0], classes = logits.dimensions[1], samples = golden.dimensions[1];
  if (actual.size() < size_t(batches) * samples * sizeof(int32_t)) return "the samples output is too small";
  std::ostringstream out;
  for (uint32_t b = 0; b < batches; ++b) {
    std::vector<double> probability(classes), frequency(classes, 0.0);
    double maxLogit = -INFINITY, sum = 0;
    for (uint32_t c = 0; c < classes; ++c) {
      maxLogit = std::max(maxLogit, elementAt(logits.type, testCase.inputs[0], size_t(b) * classes + c));
    }
    for (uint32_t c = 0; c < classes; ++c) {
      probability[c] = std::exp(elementAt(logits.type, testCase.inputs[0], size_t(b) * classes + c) - maxLogit);
      sum += probability[c];
    }
    for (uint32_t i = 0; i < samples; ++i) {
      const int32_t drawn = load<int32_t>(actual, size_t(b) * samples + i);
      if (drawn < 0 || uint32_t(drawn) >= classes) {
        out << "batch " << b << " sample " << i << " is class " << drawn << ", outside [0, " << classes << ")";
        return out.str();
      }
      frequency[drawn] += 1.0 / samples;
    }
    for (uint32_t c = 0; c < classes; ++c) {
      if (std::fabs(frequency[c] - probability[c] / sum) > testCase.multinomialTolerance) {
        out << "batch " << b << " class " << c << " was drawn with frequency " << frequency[c] << ", want "
            << probability[c] / sum << " +- " << testCase.multinomialTolerance;
        return out.str();
      }
    }
  }
  return "";
}

std::string compareOutput(const CtsTestCase& testCase, size_t outputIndex,
                          const std::vector<uint8_t>& actual,
                          const std::vector<uint32_t>& actualDimensions) {
  const GoldenOutput& golden = testCase.outputs[outputIndex];
  std::ostringstream out;
  if (golden.isIgnored) return "";
  if (!hal::hasUnspecifiedDimensions(golden.type, golden.dimensions) &&
      actualDimensions != golden.dimensions) {
    out << "output " << outputIndex << " has dimensions " << hal::toString(actualDimensions)
        << ", want " << hal::toString(golden.dimensions);
    return out.str();
  }
  if (hal::isExtension(golden.type)) {
    // Extension-typed outputs are compared byte for byte (the conformance README).
    if (actual.size() < golden.data.size()) {
      out << "output " << outputIndex << " has " << actual.size() << " bytes, want " << golden.data.size();
      return out.str();
    }
    const auto differ = std::mismatch(golden.data.begin(), golden.data.end(), actual.begin());
    if (differ.first != golden.data.end()) {
      out << "output " << outputIndex << " byte " << (differ.first - golden.data.begin()) << ": got "
          << int(*differ.second) << ", want " << int(*differ.first) << " (extension type "
          << static_cast<int32_t>(golden.type) << ", compared byte for byte)";
      return out.str();
    }
    return "";
  }
  const uint32_t elementBytes = hal::elementSize(golden.type);
  if (elementBytes == 0 || actual.size() < golden.data.size()) {
    out << "output " << outputIndex << " has " << actual.size() << " bytes, want "
        << golden.data.size();
    return out.str();
  }
  const Tolerance tolerance = toleranceFor(testCase, golden.type);
  const size_t count = golden.data.size() / elementBytes;
  for (size_t i = 0; i < count; ++i) {
    const double want = elementAt(golden.type, golden.data, i);
    const double got = elementAt(golden.type, actual, i);
    // The same infinity, or NaN for NaN, agrees: a replay of a division by zero gives back what
    // was recorded. Any other non-finite value differs (the difference is not a number).
    if (got == want || (std::isnan(got) && std::isnan(want))) continue;
    const bool finite = std::isfinite(got) && std::isfinite(want);
    if (!finite || std::fabs(got - want) > tolerance.atol + tolerance.rtol * std::fabs(want)) {
      out.precision(9);
      out << "output " << outputIndex << " element " << i << ": got " << got << ", want " << want
          << " (" << hal::toString(golden.type) << ", atol " << tolerance.atol << ", rtol "
          << tolerance.rtol << ")";
      return out.str();
    }
  }
  return "";
}

namespace {

// A stage that returned an error: the right answer for an expect_failure model, unless the
// device itself was lost (DEAD_OBJECT), which says nothing about the model.
CaseResult refusedOrFailed(const CtsTestCase& testCase, const std::string& stage, const hal::Error& error) {
  const bool lost = error.code == hal::ErrorStatus::DEAD_OBJECT;
  if (testCase.expectFailure && !lost) return CaseResult{Outcome::PASSED, ""};
  return CaseResult{Outcome::FAILED, stage + " failed: " + hal::toString(error.code) + ": " + error.message, lost};
}

}  // namespace

CaseResult executeAndCheck(const hal::IDevice& device, const CtsTestCase& testCase,
                           const hal::SharedPreparedModel& prepared, const RunOptions& options) {
  auto refusedOrFailed = [&](const std::string& stage, const hal::Error& error) {
    return conformance::refusedOrFailed(testCase, stage, error);
  };
  std::vector<size_t> outputSizes;
  for (const GoldenOutput& golden : testCase.outputs) outputSizes.push_back(golden.data.size());
  auto io = hal::makeRequest(testCase.inputs, outputSizes,
                             options.memory == PoolMemory::SHARED ? hal::createSharedMemory
                                                                  : hal::MemoryAllocator(hal::createHeapMemory));
  if (!io.ok()) return {Outcome::FAILED, io.error().message};
  hal::Request request = io->request;
  // As the CTS harness does, an input without data is an omitted (optional) operand.
  for (size_t i = 0; i < testCase.inputs.size(); ++i) {
    if (testCase.inputs[i].empty()) {
      request.inputs[i].lifetime = hal::Request::Argument::LifeTime::NO_VALUE;
      request.inputs[i].location = {};
    }
  }
  // With device memory every argument is a device buffer of its own, used whole. As the CTS
  // does, an output's buffer is described with the dimensions the test expects, which the model
  // may leave unknown. Memory domains hold tensors with elements: a scalar, or an output with no
  // elements (whose dimension 0 would read as "unknown"), keeps ordinary memory.
  std::vector<std::pair<size_t, hal::SharedBuffer>> outputBuffers;
  if (options.memory == PoolMemory::DEVICE) {
    const hal::Model::Subgraph& main = testCase.model.main;
    auto toBuffer = [&](hal::Request::Argument& argument, uint32_t index, bool isInput) -> hal::Status {
      if (argument.lifetime == hal::Request::Argument::LifeTime::NO_VALUE) return {};
      const hal::Operand& operand = main.operands[isInput ? main.inputIndexes[index] : main.outputIndexes[index]];
      const bool empty = isInput ? testCase.inputs[index].empty() : testCase.outputs[index].data.empty();
      if (!hal::isTensor(operand.type) || empty) return {};
      const std::vector<hal::BufferRole> role{{0, index, 1.0f}};
      hal::BufferDesc desc;
      if (!isInput) desc.dimensions = testCase.outputs[index].dimensions;
      NN_ASSIGN_OR_RETURN(hal::SharedBuffer buffer,
                          device.allocate(desc, {prepared}, isInput ? role : std::vector<hal::BufferRole>{},
                                          isInput ? std::vector<hal::BufferRole>{} : role));
      if (isInput) NN_RETURN_IF_ERROR(buffer->copyFrom(io->inputs[index], {}));
      request.pools[argument.location.poolIndex] = buffer;
      argument.location.length = 0;
      if (!isInput) outputBuffers.emplace_back(index, buffer);
      return {};
    };
    for (uint32_t i = 0; i < request.inputs.size(); ++i) {
      if (auto status = toBuffer(request.inputs[i], i, true); !status.ok()) return refusedOrFailed("device buffer", status.error());
    }
    for (uint32_t i = 0; i < request.outputs.size(); ++i) {
      if (auto status = toBuffer(request.outputs[i], i, false); !status.ok()) return refusedOrFailed("device buffer", status.error());
    }
  }
  auto outcome = executeWith(prepared, request, options.executor);
  if (!outcome.ok()) return refusedOrFailed("execute", outcome.error());
  if (testCase.expectFailure) {
    return {Outcome::FAILED, "expected preparation or execution to fail, but it succeeded"};
  }
  for (const auto& [index, buffer] : outputBuffers) {
    if (auto copied = buffer->copyTo(io->outputs[index]); !copied.ok()) {
      return {Outcome::FAILED, "copyTo failed: " + copied.error().message};
    }
  }
  for (size_t i = 0; i < testCase.outputs.size(); ++i) {
    const hal::SharedMemory& memory = io->outputs[i];
    std::vector<uint8_t> actual(memory->data(), memory->data() + memory->size());
    const std::vector<uint32_t> dims =
        i < outcome->outputShapes.size() ? outcome->outputShapes[i].dimensions
                                         : testCase.outputs[i].dimensions;
    std::string mismatch = testCase.multinomialTolerance > 0 && i == 0 ? compareMultinomial(testCase, actual)
                                                                       : compareOutput(testCase, i, actual, dims);
    if (!mismatch.empty()) return {Outcome::FAILED, mismatch};
  }
  return {Outcome::PASSED, ""};
}

CaseResult runCase(const hal::IDevice& device, const CtsTestCase& testCase, const RunOptions& options) {
  auto refusedOrFailed = [&](const std::string& stage, const hal::Error& error) {
    return conformance::refusedOrFailed(testCase, stage, error);
  };
  auto supported = device.getSupportedOperations(testCase.model);
  if (!supported.ok()) return refusedOrFailed("getSupportedOperations", supported.error());
  // An invalid model (expect_failure) must be refused; like the CTS, which counts a failed
  // compilation as the right answer, go on to prepare it even if the device already reports
  // its operations unsupported.
  for (size_t i = 0; i < supported->size() && !testCase.expectFailure; ++i) {
    if (!(*supported)[i]) {
      return {Outcome::UNSUPPORTED,
              "operations[" + std::to_string(i) + "] (" +
                  hal::toString(testCase.model.main.operations[i].type) + ") is unsupported"};
    }
  }
  if (options.cacheDirectory.empty()) {
    auto prepared = device.prepareModel(testCase.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                        hal::Priority::MEDIUM, std::nullopt, {}, {}, {});
    if (!prepared.ok()) return refusedOrFailed("prepareModel", prepared.error());
    return executeAndCheck(device, testCase, *prepared, options);
  }
  // With a cache: prepared while saving the cache, then again from that cache; both must pass.
  auto modelCache = hal::openCacheFiles(options.cacheDirectory, "model", device.getNumberOfCacheFilesNeeded().first);
  if (!modelCache.ok()) return {Outcome::FAILED, modelCache.error().message};
  auto dataCache = hal::openCacheFiles(options.cacheDirectory, "data", device.getNumberOfCacheFilesNeeded().second);
  if (!dataCache.ok()) return {Outcome::FAILED, dataCache.error().message};
  const hal::Digest digest = hal::sha256(reinterpret_cast<const uint8_t*>(testCase.name.data()), testCase.name.size());
  hal::CacheToken token;
  std::copy(digest.begin(), digest.end(), token.begin());
  auto prepared = device.prepareModel(testCase.model, hal::ExecutionPreference::FAST_SINGLE_ANSWER,
                                      hal::Priority::MEDIUM, std::nullopt, *modelCache, *dataCache, token);
  if (!prepared.ok()) return refusedOrFailed("prepareModel", prepared.error());
  const CaseResult fresh = executeAndCheck(device, testCase, *prepared, options);
  if (fresh.outcome != Outcome::PASSED) return fresh;
  auto fromCache = device.prepareModelFromCache(std::nullopt, *modelCache, *dataCache, token);
  if (!fromCache.ok()) {
    // The model prepared fine once, so even an expect_failure model must come back from its cache.
    return {Outcome::FAILED,
            "prepareModelFromCache failed: " + std::string(hal::toString(fromCache.error().code)) + ": " +
                fromCache.error().message,
            fromCache.error().code == hal::ErrorStatus::DEAD_OBJECT};
  }
  CaseResult cached = executeAndCheck(device, testCase, *fromCache, options);
  if (cached.outcome != Outcome::PASSED) cached.message = "prepared from cache: " + cached.message;
  return cached;
}


hal::Result<Totals> runDirectory(const hal::IDevice& device, const std::string& directory,
                                 std::ostream& log, std::map<std::string, Totals>* perVersion,
                                 const std::function<void(const CtsTestCase&, const CaseResult&)>&
                                     onCase,
                                 const RunOptions& options) {
  NN_ASSIGN_OR_RETURN(std::vector<std::string> files, findSpecFiles(directory));
  // A mistyped folder must not pass a CI job with "0 passed, 0 failed".
  if (files.empty()) {
    return hal::invalidArgument() << "no conformance models under " << directory
                                  << " (*.json files in the ../shared/conformance format, searched recursively)";
  }
  if (options.shardCount == 0 || options.shardIndex >= options.shardCount) {
    return hal::invalidArgument() << "shard " << options.shardIndex << " of " << options.shardCount
                                  << " does not exist (shards are 0 to " << options.shardCount << " - 1)";
  }
  Totals totals;
  const hal::IDevice* current = &device;
  hal::SharedDevice replacement;  // keeps a replacing device alive
  size_t replacements = 0;
  size_t ordinal = 0;  // of every case under `directory`, for sharding
  // One file is named as in its folder's run: V1_3/if.json, whose folder is its version.
  const std::filesystem::path base = std::filesystem::is_regular_file(directory)
                                         ? std::filesystem::path(directory).parent_path().parent_path()
                                         : std::filesystem::path(directory);
  for (const std::string& file : files) {
    const std::string relative = std::filesystem::relative(file, base).generic_string();
    const std::string version =
        relative.find('/') == std::string::npos ? "." : relative.substr(0, relative.find('/'));
    auto cases = loadSpecFile(file, relative);
    if (!cases.ok()) {
      log << "FAIL " << relative << ": cannot load: " << cases.error().message << std::endl;
      ++totals.failed;
      if (perVersion != nullptr) ++(*perVersion)[version].failed;
      continue;
    }
    for (const CtsTestCase& testCase : *cases) {
      if (ordinal++ % options.shardCount != options.shardIndex) continue;
      CaseResult result = runCase(*current, testCase, options);
      // A lost device (its server died) says nothing about the model: run it again elsewhere.
      while (result.deviceLost && options.replaceLostDevice && replacements < options.maxReplacements) {
        ++replacements;
        log << "LOST " << current->getName() << " running " << testCase.fullName() << " (" << result.message
            << "); replacing it (" << replacements << " of at most " << options.maxReplacements << ")\n";
        auto replaced = options.replaceLostDevice();
        if (!replaced.ok()) {
          result.message += "; no replacement device: " + replaced.error().message;
          break;
        }
        replacement = std::move(replaced).value();
        current = replacement.get();
        result = runCase(*current, testCase, options);
      }
      if (result.deviceLost && options.deviceGone && options.deviceGone()) {
        ++totals.failed;
        log << "FAIL " << testCase.fullName() << ": " << result.message << std::endl;
        return hal::makeError(hal::ErrorStatus::DEAD_OBJECT)
               << current->getName() << " is gone (" << result.message << "): stopped after " << totals.passed
               << " passed, " << totals.failed << " failed, " << totals.unsupported
               << " unsupported; the models left were not run";
      }
      Totals* bucket = perVersion ? &(*perVersion)[version] : nullptr;
      switch (result.outcome) {
        case Outcome::PASSED:
          ++totals.passed;
          if (bucket) ++bucket->passed;
          break;
        case Outcome::FAILED:
          ++totals.failed;
          if (bucket) ++bucket->failed;
          // Flushed: a CI job's log shows each failure as it happens, even if the job is killed.
          log << "FAIL " << testCase.fullName() << ": " << result.message << std::endl;
          break;
        case Outcome::UNSUPPORTED:
          ++totals.unsupported;
          if (bucket) ++bucket->unsupported;
          break;
      }
      if (onCase) onCase(testCase, result);
    }
  }
  return totals;
}

}  // namespace nnremote::conformance
