#include "hal/operand_types.h"

#include <array>
#include <limits>
#include <sstream>

namespace nnremote::hal {
namespace {

constexpr std::array<const char*, 16> kOperandTypeNames = {
    "FLOAT32",          "INT32",         "UINT32",
    "TENSOR_FLOAT32",   "TENSOR_INT32",  "TENSOR_QUANT8_ASYMM",
    "BOOL",             "TENSOR_QUANT16_SYMM", "TENSOR_FLOAT16",
    "TENSOR_BOOL8",     "FLOAT16",       "TENSOR_QUANT8_SYMM_PER_CHANNEL",
    "TENSOR_QUANT16_ASYMM", "TENSOR_QUANT8_SYMM", "TENSOR_QUANT8_ASYMM_SIGNED",
    "SUBGRAPH",
};

constexpr std::array<const char*, kLastOperationType + 1> kOperationNames = {
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE", "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED",
    "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION",
    "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D", "MUL", "RELU", "RELU1", "RELU6",
    "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH",
    "BATCH_TO_SPACE_ND", "DIV", "MEAN", "PAD", "SPACE_TO_BATCH_ND", "SQUEEZE", "STRIDED_SLICE",
    "SUB", "TRANSPOSE", "ABS", "ARGMAX", "ARGMIN", "AXIS_ALIGNED_BBOX_TRANSFORM",
    "BIDIRECTIONAL_SEQUENCE_LSTM", "BIDIRECTIONAL_SEQUENCE_RNN", "BOX_WITH_NMS_LIMIT", "CAST",
    "CHANNEL_SHUFFLE", "DETECTION_POSTPROCESSING", "EQUAL", "EXP", "EXPAND_DIMS", "GATHER",
    "GENERATE_PROPOSALS", "GREATER", "GREATER_EQUAL", "GROUPED_CONV_2D", "HEATMAP_MAX_KEYPOINT",
    "INSTANCE_NORMALIZATION", "LESS", "LESS_EQUAL", "LOG", "LOGICAL_AND", "LOGICAL_NOT",
    "LOGICAL_OR", "LOG_SOFTMAX", "MAXIMUM", "MINIMUM", "NEG", "NOT_EQUAL", "PAD_V2", "POW",
    "PRELU", "QUANTIZE", "QUANTIZED_16BIT_LSTM", "RANDOM_MULTINOMIAL", "REDUCE_ALL",
    "REDUCE_ANY", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_PROD", "REDUCE_SUM", "ROI_ALIGN",
    "ROI_POOLING", "RSQRT", "SELECT", "SIN", "SLICE", "SPLIT", "SQRT", "TILE", "TOPK_V2",
    "TRANSPOSE_CONV_2D", "UNIDIRECTIONAL_SEQUENCE_LSTM", "UNIDIRECTIONAL_SEQUENCE_RNN",
    "RESIZE_NEAREST_NEIGHBOR", "QUANTIZED_LSTM", "IF", "WHILE", "ELU", "HARD_SWISH", "FILL",
    "RANK", "BATCH_MATMUL", "PACK", "MIRROR_PAD", "REVERSE",
};

constexpr std::array<const char*, 8> kLifetimeNames = {
    "TEMPORARY_VARIABLE", "SUBGRAPH_INPUT", "SUBGRAPH_OUTPUT", "CONSTANT_COPY",
    "CONSTANT_REFERENCE", "NO_VALUE",       "SUBGRAPH",        "POINTER",
};

template <typename Enum, size_t N>
std::optional<Enum> findName(const std::array<const char*, N>& names, std::string_view name) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

}  // namespace

const char* toString(ErrorStatus status) {
  switch (status) {
    case ErrorStatus::NONE: return "NONE";
    case ErrorStatus::DEVICE_UNAVAILABLE: return "DEVICE_UNAVAILABLE";
    case ErrorStatus::GENERAL_FAILURE: return "GENERAL_FAILURE";
    case ErrorStatus::OUTPUT_INSUFFICIENT_SIZE: return "OUTPUT_INSUFFICIENT_SIZE";
    case ErrorStatus::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case ErrorStatus::MISSED_DEADLINE_TRANSIENT: return "MISSED_DEADLINE_TRANSIENT";
    case ErrorStatus::MISSED_DEADLINE_PERSISTENT: return "MISSED_DEADLINE_PERSISTENT";
    case ErrorStatus::RESOURCE_EXHAUSTED_TRANSIENT: return "RESOURCE_EXHAUSTED_TRANSIENT";
    case ErrorStatus::RESOURCE_EXHAUSTED_PERSISTENT: return "RESOURCE_EXHAUSTED_PERSISTENT";
    case ErrorStatus::DEAD_OBJECT: return "DEAD_OBJECT";
  }
  return "UNKNOWN_ERROR_STATUS";
}

bool isKnownOperandType(OperandType type) {
  const int32_t code = static_cast<int32_t>(type);
  return code >= 0 && code < static_cast<int32_t>(kOperandTypeNames.size());
}

bool isTensor(OperandType type) {
  switch (type) {
    case OperandType::FLOAT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::BOOL:
    case OperandType::FLOAT16:
    case OperandType::SUBGRAPH:
    case OperandType::OEM:
      return false;
    default:
      return true;
  }
}

uint32_t elementSize(OperandType type) {
  switch (type) {
    case OperandType::FLOAT32:
    case OperandType::INT32:
    case OperandType::UINT32:
    case OperandType::TENSOR_FLOAT32:
    case OperandType::TENSOR_INT32:
    case OperandType::SUBGRAPH:
      return 4;
    case OperandType::TENSOR_QUANT16_SYMM:
    case OperandType::TENSOR_QUANT16_ASYMM:
    case OperandType::TENSOR_FLOAT16:
    case OperandType::FLOAT16:
      return 2;
    case OperandType::TENSOR_QUANT8_ASYMM:
    case OperandType::BOOL:
    case OperandType::TENSOR_BOOL8:
    case OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL:
    case OperandType::TENSOR_QUANT8_SYMM:
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
    case OperandType::TENSOR_OEM_BYTE:
      return 1;
    default:
      return 0;
  }
}

uint64_t elementCount(const std::vector<uint32_t>& dimensions) {
  uint64_t count = 1;
  for (uint32_t d : dimensions) count *= d;
  return count;
}

std::optional<uint32_t> sizeOfData(OperandType type, const std::vector<uint32_t>& dimensions) {
  uint64_t size = elementSize(type);
  if (!isTensor(type)) return static_cast<uint32_t>(size);
  for (uint32_t d : dimensions) {
    size *= d;
    if (size > std::numeric_limits<uint32_t>::max()) return std::nullopt;
  }
  return static_cast<uint32_t>(size);
}

bool hasUnspecifiedDimensions(OperandType type, const std::vector<uint32_t>& dimensions) {
  if (!isTensor(type)) return false;
  if (dimensions.empty()) return true;
  for (uint32_t d : dimensions) {
    if (d == 0) return true;
  }
  return false;
}

namespace {
// Which extension a code belongs to is the model's to say; without it, its two halves.
std::string extensionCodeString(const char* kind, int32_t code) {
  const uint32_t bits = static_cast<uint32_t>(code);
  return std::string(kind) + "(" + std::to_string(bits) + ": extension prefix " +
         std::to_string(bits >> kExtensionTypeBits) + ", type " + std::to_string(bits & 0xFFFFu) + ")";
}
}  // namespace

std::string toString(OperandType type) {
  if (isKnownOperandType(type)) return kOperandTypeNames[static_cast<int32_t>(type)];
  if (type == OperandType::OEM) return "OEM";
  if (type == OperandType::TENSOR_OEM_BYTE) return "TENSOR_OEM_BYTE";
  const int32_t code = static_cast<int32_t>(type);
  if (isExtension(code)) return extensionCodeString("OperandType", code);
  return "OperandType(" + std::to_string(code) + ")";
}

std::string toString(OperationType type) {
  const int32_t code = static_cast<int32_t>(type);
  if (code >= 0 && code <= kLastOperationType) return kOperationNames[code];
  if (type == OperationType::OEM_OPERATION) return "OEM_OPERATION";
  if (isExtension(code)) return extensionCodeString("OperationType", code);
  return "OperationType(" + std::to_string(code) + ")";
}

std::string toString(Operand::LifeTime lifetime) {
  const int32_t code = static_cast<int32_t>(lifetime);
  if (code >= 0 && code < static_cast<int32_t>(kLifetimeNames.size())) return kLifetimeNames[code];
  return "LifeTime(" + std::to_string(code) + ")";
}

const char* priorityName(Priority priority) {
  switch (priority) {
    case Priority::LOW: return "low";
    case Priority::MEDIUM: return "medium";
    case Priority::HIGH: return "high";
  }
  return "?";
}

std::string toString(DeviceType type) {
  switch (type) {
    case DeviceType::UNKNOWN: return "UNKNOWN";
    case DeviceType::OTHER: return "OTHER";
    case DeviceType::CPU: return "CPU";
    case DeviceType::GPU: return "GPU";
    case DeviceType::ACCELERATOR: return "ACCELERATOR";
  }
  return "DeviceType(" + std::to_string(static_cast<int32_t>(type)) + ")";
}

std::string toString(Version version) {
  const int32_t code = static_cast<int32_t>(version);
  switch (version) {
    case Version::UNKNOWN: return "UNKNOWN";
    case Version::FEATURE_LEVEL_1: return "FEATURE_LEVEL_1 (NN HAL 1.0)";
    case Version::FEATURE_LEVEL_2: return "FEATURE_LEVEL_2 (NN HAL 1.1)";
    case Version::FEATURE_LEVEL_3: return "FEATURE_LEVEL_3 (NN HAL 1.2)";
    case Version::FEATURE_LEVEL_4: return "FEATURE_LEVEL_4 (NN HAL 1.3)";
    case Version::FEATURE_LEVEL_5: return "FEATURE_LEVEL_5 (AIDL v1)";
    case Version::FEATURE_LEVEL_6: return "FEATURE_LEVEL_6 (AIDL v2)";
    case Version::FEATURE_LEVEL_7: return "FEATURE_LEVEL_7 (AIDL v3)";
    case Version::FEATURE_LEVEL_8: return "FEATURE_LEVEL_8 (AIDL v4)";
  }
  return "Version(" + std::to_string(code) + ")";
}

std::string toString(const std::vector<uint32_t>& dimensions) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < dimensions.size(); ++i) out << (i ? ", " : "") << dimensions[i];
  out << "]";
  return out.str();
}

std::optional<OperandType> operandTypeFromName(std::string_view name) {
  return findName<OperandType>(kOperandTypeNames, name);
}

std::optional<OperationType> operationTypeFromName(std::string_view name) {
  return findName<OperationType>(kOperationNames, name);
}

std::optional<Operand::LifeTime> lifetimeFromName(std::string_view name) {
  return findName<Operand::LifeTime>(kLifetimeNames, name);
}

}  // namespace nnremote::hal
