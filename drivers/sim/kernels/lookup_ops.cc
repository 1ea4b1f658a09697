// Table lookups, hashing and BATCH_MATMUL: EMBEDDING_LOOKUP, HASHTABLE_LOOKUP, LSH_PROJECTION,
// BATCH_MATMUL.
#include <cstring>

#include "drivers/sim/kernels/kernel_utils.h"
#include "drivers/sim/kernels/fingerprint64.h"
#include "drivers/sim/operation_registry.h"
#include "hal/float16.h"

namespace nnremote::sim {
namespace {

size_t rowBytes(const Tensor& values) {
  size_t bytes = hal::elementSize(values.type);
  for (uint32_t d = 1; d < values.rank(); ++d) bytes *= values.dim(d);
  return bytes;
}

// ---- EMBEDDING_LOOKUP (lookups, values) -------------------------------------------------------

Status validateEmbedding(const OperationContext& context) {
  if (context.output(0).type != context.inputType(1)) return unsupported(context) << "output type differs from values'";
  return {};
}

Status prepareEmbedding(OperationContext& context) {
  std::vector<uint32_t> dims = context.input(1).dimensions;
  if (dims.empty()) return unsupported(context) << "values must be a tensor";
  // One output row per lookup: more lookup dimensions would write past the output.
  if (context.input(0).rank() != 1) {
    return unsupported(context) << "lookups must be 1-D, has rank " << context.input(0).rank();
  }
  dims[0] = context.input(0).dim(0);
  context.output(0).dimensions = dims;
  return {};
}

Status executeEmbedding(OperationContext& context) {
  const Tensor& lookups = context.input(0);
  const Tensor& values = context.input(1);
  const size_t row = rowBytes(values);
  for (size_t i = 0; i < lookups.elementCount(); ++i) {
    const int32_t index = lookups.as<int32_t>()[i];
    if (index < 0 || uint32_t(index) >= values.dim(0)) {
      return unsupported(context) << "lookup " << index << " is out of range";
    }
    std::memcpy(context.output(0).data + i * row, values.data + size_t(index) * row, row);
  }
  return {};
}

// ---- HASHTABLE_LOOKUP (lookups, keys, values) -> output, hits ---------------------------------

Status validateHashtable(const OperationContext& context) {
  if (context.output(0).type != context.inputType(2)) return unsupported(context) << "output type differs from values'";
  if (context.output(1).type != OperandType::TENSOR_QUANT8_ASYMM) return unsupported(context) << "hits must be quant8";
  return {};
}

Status prepareHashtable(OperationContext& context) {
  std::vector<uint32_t> dims = context.input(2).dimensions;
  dims[0] = context.input(0).dim(0);
  context.output(0).dimensions = dims;
  context.output(1).dimensions = {context.input(0).dim(0)};
  return {};
}

Status executeHashtable(OperationContext& context) {
  const Tensor& lookups = context.input(0);
  const Tensor& keys = context.input(1);
  const Tensor& values = context.input(2);
  const size_t row = rowBytes(values);
  for (size_t i = 0; i < lookups.elementCount(); ++i) {
    const int32_t key = lookups.as<int32_t>()[i];
    size_t found = keys.elementCount();
    for (size_t k = 0; k < keys.elementCount(); ++k) {
      if (keys.as<int32_t>()[k] == key) {
        found = k;
        break;
      }
    }
    const bool hit = found < keys.elementCount();
    if (hit) {
      std::memcpy(context.output(0).data + i * row, values.data + found * row, row);
    } else {
      std::memset(context.output(0).data + i * row, 0, row);
    }
    context.output(1).asMutable<uint8_t>()[i] = hit ? 1 : 0;
  }
  return {};
}

OperationWork movedElements(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = context.output(0).elementCount();
  return work;
}

// ---- BATCH_MATMUL (lhs, rhs, adjoint lhs, adjoint rhs) ---------------------------------------

Status validateBatchMatmul(const OperationContext& context) {
  const OperandType type = context.inputType(0);
  if (type != OperandType::TENSOR_FLOAT32 && type != OperandType::TENSOR_INT32 &&
      type != OperandType::TENSOR_QUANT8_ASYMM) {
    return unsupported(context) << hal::toString(type) << " is not implemented";
  }
  return {};
}

struct MatmulShape {
  uint32_t batches, m, k, n;
  bool adjointLhs, adjointRhs;
};

Status matmulShape(const OperationContext& context, MatmulShape* s) {
  const Tensor& lhs = context.input(0);
  const Tensor& rhs = context.input(1);
  if (lhs.rank() < 2 || lhs.rank() != rhs.rank()) return unsupported(context) << "inputs must have one rank >= 2";
  s->adjointLhs = context.scalar<uint8_t>(2) != 0;
  s->adjointRhs = context.scalar<uint8_t>(3) != 0;
  const uint32_t r = lhs.rank();
  s->batches = 1;
  for (uint32_t d = 0; d + 2 < r; ++d) {
    if (lhs.dim(d) != rhs.dim(d)) return unsupported(context) << "batch dimensions differ";
    s->batches *= lhs.dim(d);
  }
  s->m = s->adjointLhs ? lhs.dim(r - 1) : lhs.dim(r - 2);
  s->k = s->adjointLhs ? lhs.dim(r - 2) : lhs.dim(r - 1);
  const uint32_t rhsK = s->adjointRhs ? rhs.dim(r - 1) : rhs.dim(r - 2);
  s->n = s->adjointRhs ? rhs.dim(r - 2) : rhs.dim(r - 1);
  if (rhsK != s->k) return unsupported(context) << "inner dimensions " << s->k << " and " << rhsK << " differ";
  return {};
}

Status prepareBatchMatmul(OperationContext& context) {
  MatmulShape s;
  NN_RETURN_IF_ERROR(matmulShape(context, &s));
  std::vector<uint32_t> dims = context.input(0).dimensions;
  dims[dims.size() - 2] = s.m;
  dims[dims.size() - 1] = s.n;
  context.output(0).dimensions = dims;
  return {};
}

Status executeBatchMatmul(OperationContext& context) {
  MatmulShape s;
  NN_RETURN_IF_ERROR(matmulShape(context, &s));
  const Tensor& lhs = context.input(0);
  const Tensor& rhs = context.input(1);
  const Tensor& out = context.output(0);
  for (uint32_t b = 0; b < s.batches; ++b)
    for (uint32_t i = 0; i < s.m; ++i)
      for (uint32_t j = 0; j < s.n; ++j) {
        double sum = 0;
        for (uint32_t k = 0; k < s.k; ++k) {
          const size_t l = size_t(b) * s.m * s.k + (s.adjointLhs ? size_t(k) * s.m + i : size_t(i) * s.k + k);
          const size_t r = size_t(b) * s.k * s.n + (s.adjointRhs ? size_t(j) * s.k + k : size_t(k) * s.n + j);
          sum += readValue(lhs, l) * readValue(rhs, r);
        }
        writeValue(out, (size_t(b) * s.m + i) * s.n + j, sum);
      }
  return {};
}

OperationWork batchMatmulWork(const OperationContext& context) {
  MatmulShape s;
  OperationWork work;
  if (!matmulShape(context, &s).ok()) return work;
  GemmWork gemm;
  gemm.m = s.m, gemm.n = s.n, gemm.k = s.k, gemm.repeat = s.batches;
  gemm.inputElementBytes = gemm.outputElementBytes = hal::elementSize(context.inputType(0));
  work.gemms.push_back(gemm);
  return work;
}


// ---- LSH_PROJECTION (hash seeds [hashes, bits], input, weights, type) -------------------------
// Locality-sensitive hashing: bit j of hash i is the sign of the (weighted) sum, over the input's
// rows, of Fingerprint64(seed_ij as float32 bytes ++ the row's raw bytes). SPARSE gives one
// integer per hash (offset by i << bits), DENSE one bit per output element.

enum class LshType : int32_t { SPARSE_DEPRECATED = 1, SPARSE = 3, DENSE = 2 };

bool isHalfTensor(const Tensor& t) { return t.type == OperandType::TENSOR_FLOAT16; }

float floatAt(const Tensor& t, size_t i) {
  return isHalfTensor(t) ? hal::halfToFloat(t.as<uint16_t>()[i]) : t.as<float>()[i];
}

Status validateLshProjection(const OperationContext& context) {
  const OperandType seedType = context.inputType(0);
  if (seedType != OperandType::TENSOR_FLOAT32 && seedType != OperandType::TENSOR_FLOAT16) {
    return unsupported(context) << "hash seeds must be TENSOR_FLOAT32 or TENSOR_FLOAT16";
  }
  if (context.output(0).type != OperandType::TENSOR_INT32) return unsupported(context) << "output must be TENSOR_INT32";
  const int32_t type = context.scalar<int32_t>(3);
  if (type < 1 || type > 3) return unsupported(context) << "type " << type << " is not 1, 2 or 3";
  return {};
}

Status prepareLshProjection(OperationContext& context) {
  const Tensor& seeds = context.input(0);
  const Tensor& in = context.input(1);
  if (seeds.rank() != 2 || seeds.dim(1) > 32) return unsupported(context) << "hash seeds must be [hashes, bits <= 32]";
  if (in.rank() < 1) return unsupported(context) << "input must have rank 1 or more";
  const Tensor& weights = context.input(2);
  if (!weights.isOmitted && weights.data != nullptr && weights.dimensions != std::vector<uint32_t>{in.dim(0)}) {
    return unsupported(context) << "weights must have shape [" << in.dim(0) << "]";
  }
  const auto type = LshType(context.scalar<int32_t>(3));
  context.output(0).dimensions = {type == LshType::DENSE ? seeds.dim(0) * seeds.dim(1) : seeds.dim(0)};
  return {};
}

// The sign bit of the weighted sum of the rows' fingerprints under `seed`.
int lshBit(const Tensor& in, const Tensor* weights, float seed) {
  const size_t rowBytes = hal::sizeOfData(in.type, in.dimensions).value_or(0) / in.dim(0);
  std::vector<uint8_t> key(sizeof(float) + rowBytes);
  std::memcpy(key.data(), &seed, sizeof(float));
  double score = 0;
  for (uint32_t row = 0; row < in.dim(0); ++row) {
    std::memcpy(key.data() + sizeof(float), in.as<uint8_t>() + row * rowBytes, rowBytes);
    const double value = double(int64_t(fingerprint64(key.data(), key.size())));
    score += weights ? double(floatAt(*weights, row)) * value : value;
  }
  return score > 0 ? 1 : 0;
}

Status executeLshProjection(OperationContext& context) {
  const Tensor& seeds = context.input(0);
  const Tensor& in = context.input(1);
  const Tensor* weights = !context.input(2).isOmitted && context.input(2).data ? &context.input(2) : nullptr;
  const auto type = LshType(context.scalar<int32_t>(3));
  const uint32_t hashes = seeds.dim(0), bits = seeds.dim(1);
  int32_t* out = context.output(0).asMutable<int32_t>();
  for (uint32_t i = 0; i < hashes; ++i) {
    int32_t signature = 0;
    for (uint32_t j = 0; j < bits; ++j) {
      const int bit = lshBit(in, weights, floatAt(seeds, size_t(i) * bits + j));
      if (type == LshType::DENSE) {
        *out++ = bit;
      } else {
        signature = (signature << 1) | bit;
      }
    }
    if (type == LshType::SPARSE) *out++ = signature + int32_t(i * (1u << bits));
    if (type == LshType::SPARSE_DEPRECATED) *out++ = signature;
  }
  return {};
}

OperationWork lshProjectionWork(const OperationContext& context) {
  OperationWork work;
  work.vectorElements = uint64_t(context.input(0).elementCount()) * context.input(1).elementCount() * 8;
  return work;
}
}  // namespace

const OperationKernel kEmbeddingLookupKernel = {&validateEmbedding, &prepareEmbedding, &executeEmbedding,
                                                &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::EMBEDDING_LOOKUP, kEmbeddingLookupKernel);
const OperationKernel kHashtableLookupKernel = {&validateHashtable, &prepareHashtable, &executeHashtable,
                                                &movedElements};
NNREMOTE_REGISTER_KERNEL(OperationType::HASHTABLE_LOOKUP, kHashtableLookupKernel);
const OperationKernel kBatchMatmulKernel = {&validateBatchMatmul, &prepareBatchMatmul, &executeBatchMatmul,
                                            &batchMatmulWork};
NNREMOTE_REGISTER_KERNEL(OperationType::BATCH_MATMUL, kBatchMatmulKernel);
const OperationKernel kLshProjectionKernel = {&validateLshProjection, &prepareLshProjection,
                                             &executeLshProjection, &lshProjectionWork,
    /*layoutOperand=*/nullptr, /*layoutShapeOperand=*/nullptr, /*takesOmittedTensors=*/true};
NNREMOTE_REGISTER_KERNEL(OperationType::LSH_PROJECTION, kLshProjectionKernel);

}  // namespace nnremote::sim
