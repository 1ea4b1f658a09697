// Compilation caching, after AOSP VTS's CompilationCachingTest and CompilationCachingSecurityTest
// (docs/caching.md lists the cases), on every device factory: in process, where the device reads
// and writes the handles itself, and through the proxy, where only their bytes travel. Every
// test runs on a float32 and a quant8 model, as VTS's do.
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <thread>

#include "hal/compilation_cache.h"
#include "hal/i_device.h"
#include "hal/model_builder.h"
#include "tests/hal/device_factories.h"

namespace nnremote::testing {
namespace {

using hal::ErrorStatus;
using hal::OperandType;
using hal::OperationType;
using ::testing::HasSubstr;

constexpr uint32_t kLargeModelSize = 100;  // operations, as in VTS
constexpr uint32_t kIterationsTOCTOU = 20;  // VTS runs 100; the race is the same each time

// FULLY_CONNECTED of a [2, 8] input with constant weights and bias: the constants give the data
// cache something to hold.
hal::Model createTestModel(OperandType type) {
  hal::ModelBuilder b;
  std::vector<uint8_t> weights(32), weightBytes;
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<uint8_t>(100 + (i * 7) % 40);
  if (type == OperandType::TENSOR_FLOAT32) {
    std::vector<float> w(32);
    for (size_t i = 0; i < w.size(); ++i) w[i] = (static_cast<float>(weights[i]) - 120.0f) / 8.0f;
    const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {2, 8});
    const uint32_t weightsOperand = b.addConstant(OperandType::TENSOR_FLOAT32, {4, 8}, w);
    const uint32_t bias = b.addConstant(OperandType::TENSOR_FLOAT32, {4}, std::vector<float>{0.5f, -1, 2, 0});
    const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {2, 4});
    b.addOperation(OperationType::FULLY_CONNECTED, {in, weightsOperand, bias, b.addInt32(0)}, {out});
  } else {
    const uint32_t in = b.addInput(OperandType::TENSOR_QUANT8_ASYMM, {2, 8}, 0.5f, 128);
    const uint32_t weightsOperand =
        b.addConstant(OperandType::TENSOR_QUANT8_ASYMM, {4, 8}, weights.data(), weights.size(), 0.25f, 120);
    const uint32_t bias = b.addConstant(OperandType::TENSOR_INT32, {4}, std::vector<int32_t>{4, -8, 16, 0}, 0.125f);
    const uint32_t out = b.addOutput(OperandType::TENSOR_QUANT8_ASYMM, {2, 4}, 1.0f, 100);
    b.addOperation(OperationType::FULLY_CONNECTED, {in, weightsOperand, bias, b.addInt32(0)}, {out});
  }
  return b.build();
}

// A chain of `size` ADD or MUL operations, each with its own constant: two such models give
// different results, so loading one's cache for the other would show.
hal::Model createLargeTestModel(OperationType operation, OperandType type, uint32_t size) {
  hal::ModelBuilder b;
  const bool quant = type == OperandType::TENSOR_QUANT8_ASYMM;
  const float scale = quant ? 1.0f : 0.0f;
  uint32_t current = b.addInput(type, {1, 4}, scale, 0);
  for (uint32_t i = 0; i < size; ++i) {
    uint32_t constant;
    if (quant) {
      const std::vector<uint8_t> value(4, operation == OperationType::ADD ? 1 : 2);
      constant = b.addConstant(type, {1, 4}, value.data(), value.size(), operation == OperationType::ADD ? 1.0f : 0.5f, 0);
    } else {
      constant = b.addConstant(type, {1, 4}, std::vector<float>(4, operation == OperationType::ADD ? 0.5f : 1.01f));
    }
    const uint32_t next = i + 1 == size ? b.addOutput(type, {1, 4}, scale, 0) : b.addTemporary(type, {1, 4}, scale, 0);
    b.addOperation(operation, {current, constant, b.addInt32(0)}, {next});
    current = next;
  }
  return b.build();
}

std::vector<uint8_t> inputFor(const hal::Model& model) {
  const hal::Operand& input = model.main.operands[model.main.inputIndexes[0]];
  size_t count = 1;
  for (uint32_t d : input.dimensions) count *= d;
  if (input.type == OperandType::TENSOR_FLOAT32) {
    std::vector<float> values(count);
    for (size_t i = 0; i < count; ++i) values[i] = static_cast<float>(i % 5) - 1.5f;
    return hal::toBytes(values);
  }
  std::vector<uint8_t> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = static_cast<uint8_t>(i * 3 % 50);
  return values;
}

size_t outputBytes(const hal::Model& model) {
  const hal::Operand& output = model.main.operands[model.main.outputIndexes[0]];
  size_t count = output.type == OperandType::TENSOR_FLOAT32 ? 4 : 1;
  for (uint32_t d : output.dimensions) count *= d;
  return count;
}

hal::Result<std::vector<uint8_t>> run(const hal::IPreparedModel& prepared, const hal::Model& model) {
  NN_ASSIGN_OR_RETURN(auto io, hal::makeRequest({inputFor(model)}, {outputBytes(model)}));
  NN_RETURN_IF_ERROR(prepared.execute(io.request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).status());
  return hal::fromMemory<uint8_t>(io.outputs[0], outputBytes(model));
}

std::string makeTempDirectory() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/cache-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  return pattern;
}

std::vector<uint8_t> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void writeFile(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

void copyFile(const std::string& from, const std::string& to) { writeFile(to, readFile(from)); }

using CachingParam = std::tuple<DeviceFactory, OperandType>;

std::string paramName(const ::testing::TestParamInfo<CachingParam>& info) {
  return std::get<0>(info.param).name + (std::get<1>(info.param) == OperandType::TENSOR_FLOAT32 ? "_float32" : "_quant8");
}

class CompilationCachingTest : public ::testing::TestWithParam<CachingParam> {
 protected:
  void SetUp() override {
    dut_ = std::get<0>(GetParam()).create();
    type_ = std::get<1>(GetParam());
    directory_ = makeTempDirectory();
    modelCache_ = {directory_ + "/model0"};
    dataCache_ = {directory_ + "/data0"};
    for (size_t i = 0; i < token_.size(); ++i) token_[i] = static_cast<uint8_t>(i * 13 + 1);
  }

  const hal::IDevice& device() const { return *dut_.device; }

  // Handles over `paths`, each opened with `flags` (O_CREAT added so every file exists).
  static std::vector<hal::CacheFile> handles(const std::vector<std::string>& paths, int flags = O_RDWR) {
    std::vector<hal::CacheFile> out;
    for (const auto& path : paths) {
      auto file = hal::openCacheFile(path, flags | O_CREAT);
      if (!file.ok()) std::abort();
      out.push_back(*file);
    }
    return out;
  }

  hal::Result<hal::SharedPreparedModel> prepare(const hal::Model& model) const {
    return device().prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                 std::nullopt, {}, {}, {});
  }

  // prepareModel with cache handles: must succeed, cache or no cache.
  hal::SharedPreparedModel saveToCache(const hal::Model& model, const std::vector<hal::CacheFile>& modelCache,
                                       const std::vector<hal::CacheFile>& dataCache) const {
    auto prepared = device().prepareModel(model, hal::ExecutionPreference::FAST_SINGLE_ANSWER, hal::Priority::MEDIUM,
                                          std::nullopt, modelCache, dataCache, token_);
    EXPECT_TRUE(prepared.ok()) << prepared.error().message;
    return prepared.ok() ? *prepared : nullptr;
  }
  void saveToCache(const hal::Model& model) { saveToCache(model, handles(modelCache_), handles(dataCache_)); }

  hal::Result<hal::SharedPreparedModel> prepareFromCache(const std::vector<hal::CacheFile>& modelCache,
                                                         const std::vector<hal::CacheFile>& dataCache) const {
    return device().prepareModelFromCache(std::nullopt, modelCache, dataCache, token_);
  }
  hal::Result<hal::SharedPreparedModel> prepareFromCache() const {
    return prepareFromCache(handles(modelCache_), handles(dataCache_));
  }

  // The prepared model computes what a fresh preparation of `model` computes, byte for byte.
  void expectCorrect(const hal::SharedPreparedModel& prepared, const hal::Model& model) const {
    ASSERT_NE(prepared, nullptr);
    auto fresh = prepare(model);
    ASSERT_TRUE(fresh.ok()) << fresh.error().message;
    auto expected = run(**fresh, model);
    ASSERT_TRUE(expected.ok()) << expected.error().message;
    auto actual = run(*prepared, model);
    ASSERT_TRUE(actual.ok()) << actual.error().message;
    EXPECT_EQ(*actual, *expected);
  }

  static void expectRefused(const hal::Result<hal::SharedPreparedModel>& prepared) {
    ASSERT_FALSE(prepared.ok());
    EXPECT_THAT(prepared.error().code, ::testing::AnyOf(ErrorStatus::GENERAL_FAILURE, ErrorStatus::INVALID_ARGUMENT))
        << prepared.error().message;
  }

  DeviceUnderTest dut_;
  OperandType type_ = OperandType::TENSOR_FLOAT32;
  std::string directory_;
  std::vector<std::string> modelCache_, dataCache_;
  hal::CacheToken token_{};
};

TEST_P(CompilationCachingTest, AsksForOneModelAndOneDataCacheFile) {
  EXPECT_EQ(device().getNumberOfCacheFilesNeeded(), std::make_pair(1u, 1u));
}

TEST_P(CompilationCachingTest, CacheSavingAndRetrieval) {
  const hal::Model model = createTestModel(type_);
  saveToCache(model);
  EXPECT_GT(readFile(modelCache_[0]).size(), 0u);
  EXPECT_GT(readFile(dataCache_[0]).size(), 0u);
  auto prepared = prepareFromCache();
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  expectCorrect(*prepared, model);
}

TEST_P(CompilationCachingTest, AFloatModelFromCacheComputesTheRightNumbers) {
  if (type_ != OperandType::TENSOR_FLOAT32) GTEST_SKIP() << "float32 only: the reference is computed here";
  const hal::Model model = createTestModel(type_);
  saveToCache(model);
  auto prepared = prepareFromCache();
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto output = run(**prepared, model);
  ASSERT_TRUE(output.ok());
  std::vector<float> got(8);
  std::memcpy(got.data(), output->data(), 32);
  const std::vector<uint8_t> inputBytes = inputFor(model);
  std::vector<float> input(16);
  std::memcpy(input.data(), inputBytes.data(), 64);
  const float bias[4] = {0.5f, -1, 2, 0};
  for (int row = 0; row < 2; ++row) {
    for (int unit = 0; unit < 4; ++unit) {
      float sum = bias[unit];
      for (int k = 0; k < 8; ++k) {
        const int i = unit * 8 + k;
        sum += input[row * 8 + k] * ((100.0f + static_cast<float>((i * 7) % 40)) - 120.0f) / 8.0f;
      }
      EXPECT_FLOAT_EQ(got[row * 4 + unit], sum) << "row " << row << " unit " << unit;
    }
  }
}

TEST_P(CompilationCachingTest, CacheSavingAndRetrievalNonZeroOffset) {
  const hal::Model model = createTestModel(type_);
  {
    auto modelCache = handles(modelCache_), dataCache = handles(dataCache_);
    // The device must cope with non-empty files and descriptors not at offset 0.
    const uint8_t filler[2] = {0, 0};
    ASSERT_EQ(::write(modelCache[0].fds[0]->get(), filler, 2), 2);
    ASSERT_EQ(::write(dataCache[0].fds[0]->get(), filler, 2), 2);
    saveToCache(model, modelCache, dataCache);
  }
  auto modelCache = handles(modelCache_), dataCache = handles(dataCache_);
  uint8_t byte = 0;
  ASSERT_GE(::read(modelCache[0].fds[0]->get(), &byte, 1), 0);
  ASSERT_GE(::read(dataCache[0].fds[0]->get(), &byte, 1), 0);
  auto prepared = prepareFromCache(modelCache, dataCache);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  expectCorrect(*prepared, model);
}

TEST_P(CompilationCachingTest, SaveToCacheInvalidNumCache) {
  const hal::Model model = createTestModel(type_);
  const std::string extra = directory_ + "/extra";
  struct Case {
    std::vector<std::string> modelCache, dataCache;
  };
  const std::vector<Case> cases = {{{modelCache_[0], extra}, dataCache_},
                                   {{}, dataCache_},
                                   {modelCache_, {dataCache_[0], extra}},
                                   {modelCache_, {}}};
  for (const Case& c : cases) {
    const auto modelCache = handles(c.modelCache), dataCache = handles(c.dataCache);
    // Preparing succeeds and computes correctly; the cache is simply not written...
    const hal::SharedPreparedModel prepared = saveToCache(model, modelCache, dataCache);
    expectCorrect(prepared, model);
    // ...so preparing from the same handles fails.
    expectRefused(prepareFromCache(modelCache, dataCache));
  }
}

TEST_P(CompilationCachingTest, PrepareModelFromCacheInvalidNumCache) {
  const hal::Model model = createTestModel(type_);
  saveToCache(model);
  const std::string extra = directory_ + "/extra";
  expectRefused(prepareFromCache(handles({modelCache_[0], extra}), handles(dataCache_)));
  expectRefused(prepareFromCache(handles({}), handles(dataCache_)));
  expectRefused(prepareFromCache(handles(modelCache_), handles({dataCache_[0], extra})));
  expectRefused(prepareFromCache(handles(modelCache_), handles({})));
}

TEST_P(CompilationCachingTest, SaveToCacheInvalidNumFd) {
  const hal::Model model = createTestModel(type_);
  const std::string extra = directory_ + "/extra";
  for (bool modelSide : {true, false}) {
    for (bool twoFds : {true, false}) {
      auto modelCache = handles(modelCache_), dataCache = handles(dataCache_);
      hal::CacheFile& changed = modelSide ? modelCache[0] : dataCache[0];
      if (twoFds) {
        changed.fds.push_back(handles({extra})[0].fds[0]);
      } else {
        changed.fds.clear();
      }
      const hal::SharedPreparedModel prepared = saveToCache(model, modelCache, dataCache);
      expectCorrect(prepared, model);
      expectRefused(prepareFromCache(modelCache, dataCache));
    }
  }
}

TEST_P(CompilationCachingTest, PrepareModelFromCacheInvalidNumFd) {
  const hal::Model model = createTestModel(type_);
  saveToCache(model);
  const std::string extra = directory_ + "/extra";
  for (bool modelSide : {true, false}) {
    for (bool twoFds : {true, false}) {
      auto modelCache = handles(modelCache_), dataCache = handles(dataCache_);
      hal::CacheFile& changed = modelSide ? modelCache[0] : dataCache[0];
      if (twoFds) {
        changed.fds.push_back(handles({extra})[0].fds[0]);
      } else {
        changed.fds.clear();
      }
      expectRefused(prepareFromCache(modelCache, dataCache));
    }
  }
}

TEST_P(CompilationCachingTest, SaveToCacheInvalidAccessMode) {
  const hal::Model model = createTestModel(type_);
  for (bool modelSide : {true, false}) {
    auto modelCache = handles(modelCache_, modelSide ? O_RDONLY : O_RDWR);
    auto dataCache = handles(dataCache_, modelSide ? O_RDWR : O_RDONLY);
    const hal::SharedPreparedModel prepared = saveToCache(model, modelCache, dataCache);
    expectCorrect(prepared, model);
    expectRefused(prepareFromCache(modelCache, dataCache));
  }
}

TEST_P(CompilationCachingTest, PrepareModelFromCacheInvalidAccessMode) {
  const hal::Model model = createTestModel(type_);
  saveToCache(model);
  for (bool modelSide : {true, false}) {
    auto prepared = prepareFromCache(handles(modelCache_, modelSide ? O_WRONLY : O_RDWR),
                                     handles(dataCache_, modelSide ? O_RDWR : O_WRONLY));
    ASSERT_FALSE(prepared.ok());
    EXPECT_EQ(prepared.error().code, ErrorStatus::GENERAL_FAILURE) << prepared.error().message;
    EXPECT_THAT(prepared.error().message, HasSubstr("not open for reading"));
  }
}

// The two large models VTS's TOCTOU and replacement tests cache under two tokens.
struct LargeModels {
  explicit LargeModels(OperandType type)
      : mul(createLargeTestModel(OperationType::MUL, type, kLargeModelSize)),
        add(createLargeTestModel(OperationType::ADD, type, kLargeModelSize)) {}
  const hal::Model mul, add;
};

TEST_P(CompilationCachingTest, SaveToCache_TOCTOU) {
  const LargeModels models(type_);
  const std::vector<std::string> mulModelCache = {modelCache_[0] + "_mul"};
  saveToCache(models.mul, handles(mulModelCache), handles(dataCache_));
  token_[0]++;
  for (uint32_t i = 0; i < kIterationsTOCTOU; ++i) {
    {
      auto modelCache = handles(modelCache_), dataCache = handles(dataCache_);
      // Another writer replaces the model cache while it is being saved.
      std::thread writer([&] { copyFile(mulModelCache[0], modelCache_[0]); });
      saveToCache(models.add, modelCache, dataCache);
      writer.join();
    }
    // May fail, must not crash, and if it succeeds it must compute the ADD chain.
    auto prepared = prepareFromCache();
    if (prepared.ok()) expectCorrect(*prepared, models.add);
  }
}

TEST_P(CompilationCachingTest, PrepareFromCache_TOCTOU) {
  const LargeModels models(type_);
  const std::vector<std::string> mulModelCache = {modelCache_[0] + "_mul"};
  saveToCache(models.mul, handles(mulModelCache), handles(dataCache_));
  token_[0]++;
  for (uint32_t i = 0; i < kIterationsTOCTOU; ++i) {
    saveToCache(models.add);
    auto modelCache = handles(modelCache_), dataCache = handles(dataCache_);
    std::thread writer([&] { copyFile(mulModelCache[0], modelCache_[0]); });
    auto prepared = prepareFromCache(modelCache, dataCache);
    writer.join();
    if (prepared.ok()) expectCorrect(*prepared, models.add);
  }
}

TEST_P(CompilationCachingTest, ReplaceSecuritySensitiveCache) {
  const LargeModels models(type_);
  const std::vector<std::string> mulModelCache = {modelCache_[0] + "_mul"};
  saveToCache(models.mul, handles(mulModelCache), handles(dataCache_));
  token_[0]++;
  saveToCache(models.add);
  copyFile(mulModelCache[0], modelCache_[0]);
  auto prepared = prepareFromCache();
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, ErrorStatus::GENERAL_FAILURE);
}

TEST_P(CompilationCachingTest, DataCacheOfAnotherModelIsRefused) {
  const LargeModels models(type_);
  const std::vector<std::string> mulDataCache = {dataCache_[0] + "_mul"};
  saveToCache(models.mul, handles({modelCache_[0] + "_mul"}), handles(mulDataCache));
  saveToCache(models.add);
  copyFile(mulDataCache[0], dataCache_[0]);
  auto prepared = prepareFromCache();
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(prepared.error().message, HasSubstr("data_cache[0]"));
}

TEST_P(CompilationCachingTest, ADeadlineAlreadyPassedIsMissed) {
  saveToCache(createTestModel(type_));
  auto prepared = device().prepareModelFromCache(hal::Clock::now() - std::chrono::seconds(1), handles(modelCache_),
                                                 handles(dataCache_), token_);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, ErrorStatus::MISSED_DEADLINE_PERSISTENT);
}

TEST_P(CompilationCachingTest, PrepareWithoutCacheHandlesWritesNothing) {
  writeFile(modelCache_[0], {1, 2, 3});
  ASSERT_TRUE(prepare(createTestModel(type_)).ok());
  EXPECT_EQ(readFile(modelCache_[0]), (std::vector<uint8_t>{1, 2, 3}));
}

// Fuzz finding (cache_fuzzer): empty extension data made the artifact reader copy zero bytes
// to a null pointer. Extension operands, their data and the model's prefixes survive the cache.
TEST_P(CompilationCachingTest, ExtensionOperandsAndEmptyExtensionDataRoundTrip) {
  constexpr uint32_t kPrefix = 9;
  hal::ModelBuilder b;
  const uint32_t n = b.addInput(static_cast<OperandType>((kPrefix << 16) | 0), {});  // EXAMPLE_INT64
  b.model().main.operands[n].extraParams = hal::Operand::ExtensionParams{};
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {5});
  b.addOperation(static_cast<OperationType>(kPrefix << 16), {n}, {out});  // EXAMPLE_FIBONACCI
  hal::Model model = b.build();
  model.extensionNameToPrefix = {{"com.example.fibonacci", kPrefix}};
  saveToCache(model);
  auto prepared = prepareFromCache();
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<int64_t>({5})}, {20});
  ASSERT_TRUE((*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 5), (std::vector<float>{1, 1, 2, 3, 5}));
}

// ---- CompilationCachingSecurityTest ---------------------------------------------------------

class CompilationCachingSecurityTest : public CompilationCachingTest {
 protected:
  template <typename T>
  T randomInt(T lower, T upper) {
    return std::uniform_int_distribution<T>(lower, upper)(generator_);
  }
  void flipOneBit(const std::string& path) {
    std::vector<uint8_t> bytes = readFile(path);
    ASSERT_FALSE(bytes.empty());
    bytes[randomInt<size_t>(0, bytes.size() - 1)] ^= static_cast<uint8_t>(1u << randomInt(0, 7));
    writeFile(path, bytes);
  }
  void appendBytes(const std::string& path) {
    std::vector<uint8_t> bytes = readFile(path);
    const int count = randomInt(1, 256);
    for (int i = 0; i < count; ++i) bytes.push_back(static_cast<uint8_t>(randomInt(0, 255)));
    writeFile(path, bytes);
  }

  enum class Expected { GENERAL_FAILURE, NOT_CRASH };
  void testCorruptedCache(Expected expected, const std::function<void()>& corrupt) {
    const hal::Model model = createTestModel(type_);
    saveToCache(model);
    corrupt();
    auto prepared = prepareFromCache();
    if (expected == Expected::GENERAL_FAILURE) {
      ASSERT_FALSE(prepared.ok());
      EXPECT_EQ(prepared.error().code, ErrorStatus::GENERAL_FAILURE) << prepared.error().message;
    } else if (prepared.ok()) {
      expectCorrect(*prepared, model);  // a device may still hold the data; then it must be right
    }
  }

  std::mt19937 generator_;
};

TEST_P(CompilationCachingSecurityTest, CorruptedModelCache) {
  for (uint32_t seed = 0; seed < 10; ++seed) {
    generator_.seed(seed);
    testCorruptedCache(Expected::GENERAL_FAILURE, [&] { flipOneBit(modelCache_[0]); });
  }
}

TEST_P(CompilationCachingSecurityTest, WrongLengthModelCache) {
  for (uint32_t seed = 0; seed < 10; ++seed) {
    generator_.seed(seed);
    testCorruptedCache(Expected::GENERAL_FAILURE, [&] { appendBytes(modelCache_[0]); });
  }
}

TEST_P(CompilationCachingSecurityTest, CorruptedDataCache) {
  for (uint32_t seed = 0; seed < 10; ++seed) {
    generator_.seed(seed);
    testCorruptedCache(Expected::NOT_CRASH, [&] { flipOneBit(dataCache_[0]); });
  }
}

TEST_P(CompilationCachingSecurityTest, WrongLengthDataCache) {
  for (uint32_t seed = 0; seed < 10; ++seed) {
    generator_.seed(seed);
    // Our device checks the length against the sealed one, so this always fails.
    testCorruptedCache(Expected::GENERAL_FAILURE, [&] { appendBytes(dataCache_[0]); });
  }
}

TEST_P(CompilationCachingSecurityTest, TruncatedCaches) {
  testCorruptedCache(Expected::GENERAL_FAILURE, [&] {
    std::vector<uint8_t> bytes = readFile(modelCache_[0]);
    bytes.resize(bytes.size() / 2);
    writeFile(modelCache_[0], bytes);
  });
  testCorruptedCache(Expected::GENERAL_FAILURE, [&] {
    std::vector<uint8_t> bytes = readFile(dataCache_[0]);
    bytes.resize(bytes.size() - 1);
    writeFile(dataCache_[0], bytes);
  });
  testCorruptedCache(Expected::GENERAL_FAILURE, [&] { writeFile(modelCache_[0], {}); });
}

TEST_P(CompilationCachingSecurityTest, WrongToken) {
  for (uint32_t seed = 0; seed < 10; ++seed) {
    generator_.seed(seed);
    testCorruptedCache(Expected::GENERAL_FAILURE, [&] {
      token_[randomInt<size_t>(0, token_.size() - 1)] ^= static_cast<uint8_t>(1u << randomInt(0, 7));
    });
    for (size_t i = 0; i < token_.size(); ++i) token_[i] = static_cast<uint8_t>(i * 13 + 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Devices, CompilationCachingTest,
                         ::testing::Combine(::testing::ValuesIn(allDeviceFactories()),
                                            ::testing::Values(OperandType::TENSOR_FLOAT32,
                                                              OperandType::TENSOR_QUANT8_ASYMM)),
                         paramName);
INSTANTIATE_TEST_SUITE_P(Devices, CompilationCachingSecurityTest,
                         ::testing::Combine(::testing::ValuesIn(allDeviceFactories()),
                                            ::testing::Values(OperandType::TENSOR_FLOAT32,
                                                              OperandType::TENSOR_QUANT8_ASYMM)),
                         paramName);

// A client's cache files say whether they were there already: only then is there a cache to
// prepare from (Android's runtime asks the device only then).
TEST(CacheFilesTest, OpeningSaysWhetherAnyFileHadToBeCreated) {
  const std::string directory = makeTempDirectory();
  bool created = false;
  auto first = hal::openCacheFiles(directory, "model", 2, &created);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->size(), 2u);
  EXPECT_TRUE(created);
  auto again = hal::openCacheFiles(directory, "model", 2, &created);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(created) << "both were there";
  ASSERT_EQ(::unlink((directory + "/model-1").c_str()), 0);
  ASSERT_TRUE(hal::openCacheFiles(directory, "model", 2, &created).ok());
  EXPECT_TRUE(created) << "one was gone";
  auto refused = hal::openCacheFiles(directory + "/missing", "model", 1, &created);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("missing"), std::string::npos);
}

}  // namespace
}  // namespace nnremote::testing
