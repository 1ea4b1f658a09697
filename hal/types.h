// Canonical NN HAL 1.3 types, shaped after AOSP's canonical NNAPI interface (nnapi/Types.h).
// These are the only types that cross the seam between the simulator, the emulator and the proxy
// driver; protobuf stays inside wire/, emulator/ and drivers/proxy/.
#ifndef NNREMOTE_HAL_TYPES_H_
#define NNREMOTE_HAL_TYPES_H_

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "hal/memory.h"
#include "hal/result.h"

namespace nnremote::hal {

// Operand and operation type codes match NeuralNetworksTypes.h. Extension types are
// (prefix << kExtensionTypeBits) | typeWithinExtension and fit in the same int32.
enum class OperandType : int32_t {
  FLOAT32 = 0,
  INT32 = 1,
  UINT32 = 2,
  TENSOR_FLOAT32 = 3,
  TENSOR_INT32 = 4,
  TENSOR_QUANT8_ASYMM = 5,
  BOOL = 6,
  TENSOR_QUANT16_SYMM = 7,
  TENSOR_FLOAT16 = 8,
  TENSOR_BOOL8 = 9,
  FLOAT16 = 10,
  TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
  TENSOR_QUANT16_ASYMM = 12,
  TENSOR_QUANT8_SYMM = 13,
  TENSOR_QUANT8_ASYMM_SIGNED = 14,
  SUBGRAPH = 15,
  OEM = 10000,
  TENSOR_OEM_BYTE = 10001,
};

enum class OperationType : int32_t {
  ADD = 0,
  AVERAGE_POOL_2D = 1,
  CONCATENATION = 2,
  CONV_2D = 3,
  DEPTHWISE_CONV_2D = 4,
  DEPTH_TO_SPACE = 5,
  DEQUANTIZE = 6,
  EMBEDDING_LOOKUP = 7,
  FLOOR = 8,
  FULLY_CONNECTED = 9,
  HASHTABLE_LOOKUP = 10,
  L2_NORMALIZATION = 11,
  L2_POOL_2D = 12,
  LOCAL_RESPONSE_NORMALIZATION = 13,
  LOGISTIC = 14,
  LSH_PROJECTION = 15,
  LSTM = 16,
  MAX_POOL_2D = 17,
  MUL = 18,
  RELU = 19,
  RELU1 = 20,
  RELU6 = 21,
  RESHAPE = 22,
  RESIZE_BILINEAR = 23,
  RNN = 24,
  SOFTMAX = 25,
  SPACE_TO_DEPTH = 26,
  SVDF = 27,
  TANH = 28,
  BATCH_TO_SPACE_ND = 29,
  DIV = 30,
  MEAN = 31,
  PAD = 32,
  SPACE_TO_BATCH_ND = 33,
  SQUEEZE = 34,
  STRIDED_SLICE = 35,
  SUB = 36,
  TRANSPOSE = 37,
  ABS = 38,
  ARGMAX = 39,
  ARGMIN = 40,
  AXIS_ALIGNED_BBOX_TRANSFORM = 41,
  BIDIRECTIONAL_SEQUENCE_LSTM = 42,
  BIDIRECTIONAL_SEQUENCE_RNN = 43,
  BOX_WITH_NMS_LIMIT = 44,
  CAST = 45,
  CHANNEL_SHUFFLE = 46,
  DETECTION_POSTPROCESSING = 47,
  EQUAL = 48,
  EXP = 49,
  EXPAND_DIMS = 50,
  GATHER = 51,
  GENERATE_PROPOSALS = 52,
  GREATER = 53,
  GREATER_EQUAL = 54,
  GROUPED_CONV_2D = 55,
  HEATMAP_MAX_KEYPOINT = 56,
  INSTANCE_NORMALIZATION = 57,
  LESS = 58,
  LESS_EQUAL = 59,
  LOG = 60,
  LOGICAL_AND = 61,
  LOGICAL_NOT = 62,
  LOGICAL_OR = 63,
  LOG_SOFTMAX = 64,
  MAXIMUM = 65,
  MINIMUM = 66,
  NEG = 67,
  NOT_EQUAL = 68,
  PAD_V2 = 69,
  POW = 70,
  PRELU = 71,
  QUANTIZE = 72,
  QUANTIZED_16BIT_LSTM = 73,
  RANDOM_MULTINOMIAL = 74,
  REDUCE_ALL = 75,
  REDUCE_ANY = 76,
  REDUCE_MAX = 77,
  REDUCE_MIN = 78,
  REDUCE_PROD = 79,
  REDUCE_SUM = 80,
  ROI_ALIGN = 81,
  ROI_POOLING = 82,
  RSQRT = 83,
  SELECT = 84,
  SIN = 85,
  SLICE = 86,
  SPLIT = 87,
  SQRT = 88,
  TILE = 89,
  TOPK_V2 = 90,
  TRANSPOSE_CONV_2D = 91,
  UNIDIRECTIONAL_SEQUENCE_LSTM = 92,
  UNIDIRECTIONAL_SEQUENCE_RNN = 93,
  RESIZE_NEAREST_NEIGHBOR = 94,
  QUANTIZED_LSTM = 95,
  IF = 96,
  WHILE = 97,
  ELU = 98,
  HARD_SWISH = 99,
  FILL = 100,
  RANK = 101,
  BATCH_MATMUL = 102,
  PACK = 103,
  MIRROR_PAD = 104,
  REVERSE = 105,
  OEM_OPERATION = 10000,
};

constexpr int kExtensionTypeBits = 16;
constexpr int32_t kLastOperationType = static_cast<int32_t>(OperationType::REVERSE);

enum class DeviceType : int32_t { UNKNOWN = 0, OTHER = 1, CPU = 2, GPU = 3, ACCELERATOR = 4 };

// NNAPI feature levels; the values are the Android API levels (AIDL levels are 1000000 + n).
enum class Version : int32_t {
  UNKNOWN = 0,
  FEATURE_LEVEL_1 = 27,
  FEATURE_LEVEL_2 = 28,
  FEATURE_LEVEL_3 = 29,
  FEATURE_LEVEL_4 = 30,
  FEATURE_LEVEL_5 = 31,
  FEATURE_LEVEL_6 = 1000006,
  FEATURE_LEVEL_7 = 1000007,
  FEATURE_LEVEL_8 = 1000008,
};

enum class ExecutionPreference : int32_t { LOW_POWER = 0, FAST_SINGLE_ANSWER = 1, SUSTAINED_SPEED = 2 };
enum class Priority : int32_t { LOW = 0, MEDIUM = 1, HIGH = 2 };
enum class MeasureTiming : bool { NO = false, YES = true };

using Clock = std::chrono::steady_clock;
using Duration = std::chrono::nanoseconds;
using OptionalDuration = std::optional<Duration>;
using TimePoint = Clock::time_point;
using OptionalTimePoint = std::optional<TimePoint>;

// About 146 years: a longer duration counts as this long, which never runs out, so time points
// built from any duration (a uint64_t timeout, a deadline of TimePoint::max()) cannot overflow.
inline constexpr Duration kLongestDuration{int64_t{1} << 62};

// A timeout of `nanoseconds`: Android's runtime takes every uint64_t, UINT64_MAX included, the
// longest as one that never runs out.
inline Duration durationOf(uint64_t nanoseconds) {
  return Duration(static_cast<Duration::rep>(std::min<uint64_t>(nanoseconds, kLongestDuration.count())));
}
inline TimePoint deadlineAfter(uint64_t nanoseconds) { return Clock::now() + durationOf(nanoseconds); }
// The time left until `deadline` (negative once it has passed), at most kLongestDuration.
inline Duration timeUntil(TimePoint deadline) { return std::min<Duration>(deadline - Clock::now(), kLongestDuration); }

// Both durations are std::nullopt ("not available") unless timing was requested and measured.
struct Timing {
  OptionalDuration timeOnDevice;
  OptionalDuration timeInDriver;
  bool operator==(const Timing& o) const {
    return timeOnDevice == o.timeOnDevice && timeInDriver == o.timeInDriver;
  }
};

constexpr size_t kByteSizeOfCacheToken = 32;
using CacheToken = std::array<uint8_t, kByteSizeOfCacheToken>;

// An open file descriptor, closed when its last holder lets go.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};
using SharedFd = std::shared_ptr<const FileDescriptor>;

// A cache file handle, as the HAL passes it: file descriptors the caller opened and owns. A valid
// handle holds exactly one, readable to prepare from cache and writable to save. Devices read and
// write the whole file from offset 0, whatever the descriptor's current offset, and never open a
// path. Through the proxy the handles stay in the client process: the proxy reads and writes
// them and only their bytes travel (docs/caching.md).
struct CacheFile {
  std::vector<SharedFd> fds;
  bool operator==(const CacheFile& o) const { return fds == o.fds; }
};

// ---------------------------------------------------------------------------------------------
// Capabilities and extensions
// ---------------------------------------------------------------------------------------------

struct PerformanceInfo {
  float execTime = 1.0f;    // ratio to the CPU reference; lower is faster
  float powerUsage = 1.0f;  // ratio to the CPU reference; lower uses less power
  bool operator==(const PerformanceInfo& o) const {
    return execTime == o.execTime && powerUsage == o.powerUsage;
  }
};

struct OperandPerformance {
  OperandType type = OperandType::FLOAT32;
  PerformanceInfo info;
  bool operator==(const OperandPerformance& o) const { return type == o.type && info == o.info; }
};

struct Capabilities {
  PerformanceInfo relaxedFloat32toFloat16PerformanceScalar;
  PerformanceInfo relaxedFloat32toFloat16PerformanceTensor;
  std::vector<OperandPerformance> operandPerformance;  // sorted by type, no duplicates
  PerformanceInfo ifPerformance;
  PerformanceInfo whilePerformance;
  bool operator==(const Capabilities& o) const {
    return relaxedFloat32toFloat16PerformanceScalar == o.relaxedFloat32toFloat16PerformanceScalar &&
           relaxedFloat32toFloat16PerformanceTensor == o.relaxedFloat32toFloat16PerformanceTensor &&
           operandPerformance == o.operandPerformance && ifPerformance == o.ifPerformance &&
           whilePerformance == o.whilePerformance;
  }
};

struct Extension {
  struct OperandTypeInformation {
    uint16_t type = 0;
    bool isTensor = false;
    uint32_t byteSize = 0;
    bool operator==(const OperandTypeInformation& o) const {
      return type == o.type && isTensor == o.isTensor && byteSize == o.byteSize;
    }
  };
  std::string name;
  std::vector<OperandTypeInformation> operandTypes;
  bool operator==(const Extension& o) const {
    return name == o.name && operandTypes == o.operandTypes;
  }
};

// ---------------------------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------------------------

struct DataLocation {
  // Set only for POINTER lifetimes, which exist inside one process.
  const void* pointer = nullptr;
  uint32_t poolIndex = 0;
  uint32_t offset = 0;
  uint32_t length = 0;
  uint32_t padding = 0;
  bool operator==(const DataLocation& o) const {
    return pointer == o.pointer && poolIndex == o.poolIndex && offset == o.offset &&
           length == o.length && padding == o.padding;
  }
};

struct Operand {
  enum class LifeTime : int32_t {
    TEMPORARY_VARIABLE = 0,
    SUBGRAPH_INPUT = 1,
    SUBGRAPH_OUTPUT = 2,
    CONSTANT_COPY = 3,
    CONSTANT_REFERENCE = 4,
    NO_VALUE = 5,
    SUBGRAPH = 6,
    POINTER = 7,
  };

  struct NoParams {
    bool operator==(const NoParams&) const { return true; }
  };
  struct SymmPerChannelQuantParams {
    std::vector<float> scales;
    uint32_t channelDim = 0;
    bool operator==(const SymmPerChannelQuantParams& o) const {
      return scales == o.scales && channelDim == o.channelDim;
    }
  };
  using ExtensionParams = std::vector<uint8_t>;
  using ExtraParams = std::variant<NoParams, SymmPerChannelQuantParams, ExtensionParams>;

  OperandType type = OperandType::FLOAT32;
  std::vector<uint32_t> dimensions;  // 0 = unknown; empty = scalar or unknown rank
  float scale = 0.0f;
  int32_t zeroPoint = 0;
  LifeTime lifetime = LifeTime::TEMPORARY_VARIABLE;
  DataLocation location;
  ExtraParams extraParams;

  bool operator==(const Operand& o) const {
    return type == o.type && dimensions == o.dimensions && scale == o.scale &&
           zeroPoint == o.zeroPoint && lifetime == o.lifetime && location == o.location &&
           extraParams == o.extraParams;
  }
};

struct Operation {
  OperationType type = OperationType::ADD;
  std::vector<uint32_t> inputs;
  std::vector<uint32_t> outputs;
  bool operator==(const Operation& o) const {
    return type == o.type && inputs == o.inputs && outputs == o.outputs;
  }
};

struct Model {
  struct Subgraph {
    std::vector<Operand> operands;
    std::vector<Operation> operations;  // in execution order
    std::vector<uint32_t> inputIndexes;
    std::vector<uint32_t> outputIndexes;
    bool operator==(const Subgraph& o) const {
      return operands == o.operands && operations == o.operations &&
             inputIndexes == o.inputIndexes && outputIndexes == o.outputIndexes;
    }
  };

  struct ExtensionNameAndPrefix {
    std::string name;
    uint16_t prefix = 0;
    bool operator==(const ExtensionNameAndPrefix& o) const {
      return name == o.name && prefix == o.prefix;
    }
  };

  Subgraph main;
  std::vector<Subgraph> referenced;
  std::vector<uint8_t> operandValues;  // CONSTANT_COPY data
  std::vector<SharedMemory> pools;     // CONSTANT_REFERENCE data
  bool relaxComputationFloat32toFloat16 = false;
  std::vector<ExtensionNameAndPrefix> extensionNameToPrefix;
};

// ---------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------

class IBuffer;
using SharedBuffer = std::shared_ptr<const IBuffer>;

struct Request {
  struct Argument {
    enum class LifeTime : int32_t { POOL = 0, NO_VALUE = 1, POINTER = 2 };
    LifeTime lifetime = LifeTime::POOL;
    DataLocation location;
    std::vector<uint32_t> dimensions;  // empty: use the model's dimensions
    bool operator==(const Argument& o) const {
      return lifetime == o.lifetime && location == o.location && dimensions == o.dimensions;
    }
  };

  // A token naming a device buffer from IDevice::allocate; 0 is never valid.
  enum class MemoryDomainToken : uint32_t {};
  // A pool is client memory, a device buffer's token, or (in-process only) the buffer itself.
  using MemoryPool = std::variant<SharedMemory, MemoryDomainToken, SharedBuffer>;

  std::vector<Argument> inputs;
  std::vector<Argument> outputs;
  std::vector<MemoryPool> pools;
};

// ---------------------------------------------------------------------------------------------
// Memory domains
// ---------------------------------------------------------------------------------------------

class IPreparedModel;
using SharedPreparedModel = std::shared_ptr<const IPreparedModel>;

struct BufferDesc {
  std::vector<uint32_t> dimensions;
};

struct BufferRole {
  uint32_t modelIndex = 0;  // index into the preparedModels argument
  uint32_t ioIndex = 0;
  float probability = 0.0f;
};

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_TYPES_H_
