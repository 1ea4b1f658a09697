// The simulator's compilation-cache artifact: what it seals, that nothing unsealed loads, and that
// a sealed artifact with a constant at a misaligned offset (which only a holder of the key could
// make; cache_fuzzer did) still loads correctly.
#include <sys/mman.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "drivers/sim/compiled_artifact.h"
#include "drivers/sim/sim_device.h"
#include "hal/model_builder.h"

namespace nnremote::sim {
namespace {

using hal::OperandType;
using ::testing::HasSubstr;

hal::CacheSecret testSecret() {
  hal::CacheSecret secret;
  secret.bytes.fill(0x5a);
  return secret;
}

// out = in + c with a float constant c of 4 elements.
hal::Model addConstantModel() {
  hal::ModelBuilder b;
  const uint32_t in = b.addInput(OperandType::TENSOR_FLOAT32, {4});
  const uint32_t c = b.addConstant(OperandType::TENSOR_FLOAT32, {4}, std::vector<float>{1, 2, 3, 4});
  const uint32_t out = b.addOutput(OperandType::TENSOR_FLOAT32, {4});
  b.addOperation(hal::OperationType::ADD, {in, c, b.addInt32(0)}, {out});
  return b.build();
}

hal::CacheFile memoryFile(const std::vector<uint8_t>& bytes) {
  const int fd = ::memfd_create("artifact-test", MFD_CLOEXEC);
  hal::CacheFile file{{std::make_shared<const hal::FileDescriptor>(fd)}};
  EXPECT_TRUE(hal::writeCacheFile(file, "test", bytes.data(), bytes.size()).ok());
  return file;
}

TEST(CompiledArtifactTest, TheGraphComesBackAndNothingUnsealedDoes) {
  const auto device = SimDevice::create(edgeNpuConfig(), testSecret());
  const hal::CacheSecret secret = testSecret();
  const hal::CacheToken token{};
  const ArtifactBinding binding{secret, token, device->getName(), device->getVersionString()};
  auto artifact = buildArtifact(addConstantModel(), binding);
  ASSERT_TRUE(artifact.ok()) << artifact.error().message;
  auto sealed = openModelCache(artifact->modelCache, binding);
  ASSERT_TRUE(sealed.ok()) << sealed.error().message;
  EXPECT_EQ(sealed->graph.main.operations, addConstantModel().main.operations);
  EXPECT_EQ(sealed->graph.main.operands[1].lifetime, hal::Operand::LifeTime::CONSTANT_REFERENCE);
  EXPECT_EQ(sealed->data.length, 64u + 4u);  // the float constant, then the activation at 64

  std::vector<uint8_t> tampered = artifact->modelCache;
  tampered[10] ^= 1;
  auto refused = openModelCache(tampered, binding);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, hal::ErrorStatus::GENERAL_FAILURE);
  EXPECT_THAT(refused.error().message, HasSubstr("fails its integrity check"));
}

TEST(CompiledArtifactTest, ASealedConstantAtAMisalignedOffsetStillLoadsCorrectly) {
  const auto device = SimDevice::create(edgeNpuConfig(), testSecret());
  const hal::CacheSecret secret = testSecret();
  const hal::CacheToken token{};
  const ArtifactBinding binding{secret, token, device->getName(), device->getVersionString()};
  auto artifact = buildArtifact(addConstantModel(), binding);
  ASSERT_TRUE(artifact.ok());
  auto sealed = openModelCache(artifact->modelCache, binding);
  ASSERT_TRUE(sealed.ok());
  // The same data with the float constant moved to offset 1 (the activation stays at 64).
  std::vector<uint8_t> data(artifact->data->data(), artifact->data->data() + sealed->data.length);
  const std::vector<float> values = {1, 2, 3, 4};
  std::memcpy(data.data() + 1, values.data(), 16);
  std::vector<uint8_t> content(artifact->modelCache.begin(), artifact->modelCache.end() - kModelCacheSealBytes);
  // The graph ends with the data's digest (32) and length (8); point the operand at offset 1 by
  // rewriting the digest and length for the new blob, and the offset field in place.
  const hal::Digest digest = hal::sha256(data.data(), data.size());
  std::memcpy(content.data() + content.size() - 40, digest.data(), 32);
  const uint64_t length = data.size();
  std::memcpy(content.data() + content.size() - 8, &length, 8);
  // The constant operand's location: find its (poolIndex 0, offset 0, length 16, padding 0).
  const uint32_t pattern[4] = {0, 0, 16, 0};
  auto at = std::search(content.begin(), content.end(), reinterpret_cast<const uint8_t*>(pattern),
                        reinterpret_cast<const uint8_t*>(pattern) + sizeof(pattern));
  ASSERT_NE(at, content.end());
  const uint32_t one = 1;
  std::memcpy(&*at + 4, &one, 4);
  const hal::Digest seal = sealModelCache(binding, content.data(), content.size());
  content.insert(content.end(), seal.begin(), seal.end());
  std::vector<uint8_t> dataFile(kDataCacheHeaderBytes, 0);
  dataFile.reserve(kDataCacheHeaderBytes + data.size());
  const char magic[4] = {'N', 'N', 'R', 'D'};
  std::memcpy(dataFile.data(), magic, 4);
  const uint32_t version = 1;
  std::memcpy(dataFile.data() + 4, &version, 4);
  std::memcpy(dataFile.data() + 8, digest.data(), 32);
  std::memcpy(dataFile.data() + 40, &length, 8);
  dataFile.insert(dataFile.end(), data.begin(), data.end());

  auto prepared = device->prepareModelFromCache(std::nullopt, {memoryFile(content)}, {memoryFile(dataFile)}, token);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto io = hal::makeRequest({hal::toBytes<float>({10, 20, 30, 40})}, {16});
  ASSERT_TRUE((*prepared)->execute(io->request, hal::MeasureTiming::NO, std::nullopt, std::nullopt).ok());
  EXPECT_EQ(hal::fromMemory<float>(io->outputs[0], 4), (std::vector<float>{11, 22, 33, 44}));
}

}  // namespace
}  // namespace nnremote::sim
