#include "drivers/sim/compiled_artifact.h"

#include <cstring>
#include <string_view>

#include "drivers/sim/graph_executor.h"

namespace nnremote::sim {
namespace {

using hal::ErrorStatus;
using hal::makeError;
using LifeTime = hal::Operand::LifeTime;

constexpr char kModelMagic[4] = {'N', 'N', 'R', 'M'};
constexpr char kDataMagic[4] = {'N', 'N', 'R', 'D'};
constexpr uint32_t kFormatVersion = 1;
constexpr const char* kSealDomain = "nnremote-sim compilation cache v1";
constexpr size_t kConstantAlignment = 64;
// Far beyond any real graph; only bounds what a corrupt length could make the reader allocate.
constexpr uint32_t kMaxCount = 1u << 24;

class ByteWriter {
 public:
  void raw(const void* data, size_t size) {
    if (size == 0) return;
    const auto* bytes = static_cast<const uint8_t*>(data);
    out_.insert(out_.end(), bytes, bytes + size);
  }
  void u32(uint32_t value) { raw(&value, sizeof(value)); }
  void i32(int32_t value) { raw(&value, sizeof(value)); }
  void u64(uint64_t value) { raw(&value, sizeof(value)); }
  void f32(float value) { raw(&value, sizeof(value)); }
  void bytes(const std::vector<uint8_t>& value) {
    u32(static_cast<uint32_t>(value.size()));
    raw(value.data(), value.size());
  }
  void u32s(const std::vector<uint32_t>& values) {
    u32(static_cast<uint32_t>(values.size()));
    for (uint32_t v : values) u32(v);
  }
  std::vector<uint8_t>& out() { return out_; }

 private:
  std::vector<uint8_t> out_;
};

// Reads what ByteWriter wrote. The seal is checked before parsing, so a failure here means a
// bug or a leaked secret; it is still refused cleanly rather than trusted.
class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool raw(void* out, size_t size) {
    if (size > size_ - position_) return failed_ = true, false;
    if (size == 0) return true;  // `out` may be an empty vector's null data()
    std::memcpy(out, data_ + position_, size);
    position_ += size;
    return true;
  }
  uint32_t u32() { uint32_t v = 0; raw(&v, sizeof(v)); return v; }
  int32_t i32() { int32_t v = 0; raw(&v, sizeof(v)); return v; }
  uint64_t u64() { uint64_t v = 0; raw(&v, sizeof(v)); return v; }
  float f32() { float v = 0; raw(&v, sizeof(v)); return v; }
  uint32_t count() {
    const uint32_t n = u32();
    if (n > kMaxCount || n > size_ - position_) failed_ = true;
    return failed_ ? 0 : n;
  }
  std::vector<uint8_t> bytes() {
    std::vector<uint8_t> value(count());
    raw(value.data(), value.size());
    return value;
  }
  std::vector<uint32_t> u32s() {
    std::vector<uint32_t> values(count());
    for (uint32_t& v : values) v = u32();
    return values;
  }
  // Marks the input malformed, as a read past its end does; the caller then refuses it.
  void fail() { failed_ = true; }
  bool failed() const { return failed_; }
  bool atEnd() const { return position_ == size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
  bool failed_ = false;
};

void writeOperand(ByteWriter& w, const hal::Operand& operand) {
  w.i32(static_cast<int32_t>(operand.type));
  w.u32s(operand.dimensions);
  w.f32(operand.scale);
  w.i32(operand.zeroPoint);
  w.i32(static_cast<int32_t>(operand.lifetime));
  w.u32(operand.location.poolIndex);
  w.u32(operand.location.offset);
  w.u32(operand.location.length);
  w.u32(operand.location.padding);
  w.u32(static_cast<uint32_t>(operand.extraParams.index()));
  if (const auto* channel = std::get_if<hal::Operand::SymmPerChannelQuantParams>(&operand.extraParams)) {
    w.u32(static_cast<uint32_t>(channel->scales.size()));
    for (float scale : channel->scales) w.f32(scale);
    w.u32(channel->channelDim);
  } else if (const auto* extension = std::get_if<hal::Operand::ExtensionParams>(&operand.extraParams)) {
    w.bytes(*extension);
  }
}

hal::Operand readOperand(ByteReader& r) {
  hal::Operand operand;
  operand.type = static_cast<hal::OperandType>(r.i32());
  operand.dimensions = r.u32s();
  operand.scale = r.f32();
  operand.zeroPoint = r.i32();
  operand.lifetime = static_cast<LifeTime>(r.i32());
  operand.location.poolIndex = r.u32();
  operand.location.offset = r.u32();
  operand.location.length = r.u32();
  operand.location.padding = r.u32();
  switch (r.u32()) {
    case 0: break;
    case 1: {
      hal::Operand::SymmPerChannelQuantParams channel;
      channel.scales.resize(r.count());
      for (float& scale : channel.scales) scale = r.f32();
      channel.channelDim = r.u32();
      operand.extraParams = std::move(channel);
      break;
    }
    case 2: operand.extraParams = r.bytes(); break;
    default: r.fail();
  }
  return operand;
}

void writeSubgraph(ByteWriter& w, const hal::Model::Subgraph& subgraph) {
  w.u32(static_cast<uint32_t>(subgraph.operands.size()));
  for (const hal::Operand& operand : subgraph.operands) writeOperand(w, operand);
  w.u32(static_cast<uint32_t>(subgraph.operations.size()));
  for (const hal::Operation& operation : subgraph.operations) {
    w.i32(static_cast<int32_t>(operation.type));
    w.u32s(operation.inputs);
    w.u32s(operation.outputs);
  }
  w.u32s(subgraph.inputIndexes);
  w.u32s(subgraph.outputIndexes);
}

hal::Model::Subgraph readSubgraph(ByteReader& r) {
  hal::Model::Subgraph subgraph;
  subgraph.operands.resize(r.count());
  for (hal::Operand& operand : subgraph.operands) operand = readOperand(r);
  subgraph.operations.resize(r.count());
  for (hal::Operation& operation : subgraph.operations) {
    operation.type = static_cast<hal::OperationType>(r.i32());
    operation.inputs = r.u32s();
    operation.outputs = r.u32s();
  }
  subgraph.inputIndexes = r.u32s();
  subgraph.outputIndexes = r.u32s();
  return subgraph;
}

std::string_view view(const void* data, size_t size) { return {static_cast<const char*>(data), size}; }

size_t alignUp(size_t value) { return (value + kConstantAlignment - 1) / kConstantAlignment * kConstantAlignment; }

}  // namespace

hal::Digest sealModelCache(const ArtifactBinding& binding, const uint8_t* content, size_t size) {
  return hal::hmacSha256(binding.secret, {kSealDomain, view(binding.token.data(), binding.token.size()),
                                          binding.deviceName, binding.deviceVersion, view(content, size)});
}

hal::Result<Artifact> buildArtifact(const hal::Model& model, const ArtifactBinding& binding) {
  // Every constant moves into the data blob; the graph keeps CONSTANT_REFERENCEs into it.
  hal::Model graph = model;
  graph.operandValues.clear();
  graph.pools.clear();
  std::vector<std::pair<const uint8_t*, hal::Operand*>> constants;
  size_t dataLength = 0;
  auto place = [&](const hal::Model::Subgraph& source, hal::Model::Subgraph& target) {
    for (size_t i = 0; i < source.operands.size(); ++i) {
      const hal::Operand& operand = source.operands[i];
      const uint8_t* bytes = constantData(model, operand);
      if (bytes == nullptr) continue;
      dataLength = alignUp(dataLength);
      hal::Operand& placed = target.operands[i];
      placed.lifetime = LifeTime::CONSTANT_REFERENCE;
      placed.location = {nullptr, 0, static_cast<uint32_t>(dataLength), operand.location.length, 0};
      constants.emplace_back(bytes, &placed);
      dataLength += operand.location.length;
    }
  };
  place(model.main, graph.main);
  for (size_t s = 0; s < model.referenced.size(); ++s) place(model.referenced[s], graph.referenced[s]);
  if (dataLength > UINT32_MAX) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "the model's constants take " << dataLength
                                                   << " bytes; a cache holds at most 4 GiB";
  }

  Artifact artifact;
  NN_ASSIGN_OR_RETURN(artifact.data, hal::createHeapMemory(std::max<size_t>(dataLength, 1)));
  for (const auto& [bytes, operand] : constants) {
    std::memcpy(artifact.data->data() + operand->location.offset, bytes, operand->location.length);
  }
  artifact.dataDigest = hal::sha256(artifact.data->data(), dataLength);

  ByteWriter header;
  header.raw(kDataMagic, sizeof(kDataMagic));
  header.u32(kFormatVersion);
  header.raw(artifact.dataDigest.data(), artifact.dataDigest.size());
  header.u64(dataLength);
  artifact.dataCacheHeader = std::move(header.out());
  artifact.dataCacheHeader.resize(kDataCacheHeaderBytes, 0);

  ByteWriter w;
  w.raw(kModelMagic, sizeof(kModelMagic));
  w.u32(kFormatVersion);
  w.u32(graph.relaxComputationFloat32toFloat16 ? 1 : 0);
  w.u32(static_cast<uint32_t>(graph.extensionNameToPrefix.size()));
  for (const auto& extension : graph.extensionNameToPrefix) {
    w.bytes(std::vector<uint8_t>(extension.name.begin(), extension.name.end()));
    w.u32(extension.prefix);
  }
  w.u32(static_cast<uint32_t>(1 + graph.referenced.size()));
  writeSubgraph(w, graph.main);
  for (const auto& subgraph : graph.referenced) writeSubgraph(w, subgraph);
  w.raw(artifact.dataDigest.data(), artifact.dataDigest.size());
  w.u64(dataLength);
  const hal::Digest mac = sealModelCache(binding, w.out().data(), w.out().size());
  w.raw(mac.data(), mac.size());
  artifact.modelCache = std::move(w.out());
  return artifact;
}

hal::Result<SealedGraph> openModelCache(const std::vector<uint8_t>& bytes, const ArtifactBinding& binding) {
  hal::Digest mac;
  if (bytes.size() < sizeof(kModelMagic) + sizeof(uint32_t) + mac.size() ||
      std::memcmp(bytes.data(), kModelMagic, sizeof(kModelMagic)) != 0) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "model_cache[0] is not a model cache of " << binding.deviceName;
  }
  const size_t contentSize = bytes.size() - mac.size();
  std::memcpy(mac.data(), bytes.data() + contentSize, mac.size());
  if (!hal::digestsEqual(mac, sealModelCache(binding, bytes.data(), contentSize))) {
    return makeError(ErrorStatus::GENERAL_FAILURE)
           << "model_cache[0] fails its integrity check: it was not written by " << binding.deviceName << " ("
           << binding.deviceVersion << ") of this server for this token, or it was changed since";
  }
  ByteReader r(bytes.data() + sizeof(kModelMagic), contentSize - sizeof(kModelMagic));
  if (r.u32() != kFormatVersion) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "model_cache[0] has an unknown format version";
  }
  SealedGraph sealed;
  sealed.graph.relaxComputationFloat32toFloat16 = r.u32() != 0;
  sealed.graph.extensionNameToPrefix.resize(r.count());
  for (auto& extension : sealed.graph.extensionNameToPrefix) {
    const std::vector<uint8_t> name = r.bytes();
    extension.name.assign(name.begin(), name.end());
    extension.prefix = static_cast<uint16_t>(r.u32());
  }
  const uint32_t subgraphs = r.count();
  if (subgraphs == 0) r.fail();
  for (uint32_t s = 0; s < subgraphs && !r.failed(); ++s) {
    if (s == 0) {
      sealed.graph.main = readSubgraph(r);
    } else {
      sealed.graph.referenced.push_back(readSubgraph(r));
    }
  }
  r.raw(sealed.data.digest.data(), sealed.data.digest.size());
  sealed.data.length = r.u64();
  if (r.failed() || !r.atEnd()) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "model_cache[0] is malformed";
  }
  return sealed;
}

hal::Result<DataCacheHeader> parseDataCacheHeader(const std::vector<uint8_t>& head) {
  if (head.size() < kDataCacheHeaderBytes || std::memcmp(head.data(), kDataMagic, sizeof(kDataMagic)) != 0) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "data_cache[0] is not a data cache";
  }
  ByteReader r(head.data() + sizeof(kDataMagic), kDataCacheHeaderBytes - sizeof(kDataMagic));
  if (r.u32() != kFormatVersion) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "data_cache[0] has an unknown format version";
  }
  DataCacheHeader header;
  r.raw(header.digest.data(), header.digest.size());
  header.length = r.u64();
  return header;
}

}  // namespace nnremote::sim
