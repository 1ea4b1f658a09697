/*
 * NeuralNetworksTypes.h: the types, enums and constants of the Android Neural
 * Networks API (NNAPI) C interface.
 *
 * ABI-compatible with the Android NDK's <android/NeuralNetworksTypes.h>: every
 * name, numeric value and struct layout matches the NDK, up to NNAPI feature
 * level 8. Plain C99; usable from C++.
 *
 * Written for nnremote.
 */

#ifndef ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_TYPES_H
#define ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Operand types: the data type of an operand. TENSOR_* types have at least one
 * dimension; the others are scalars. See NeuralNetworksOEM.h for the deprecated
 * OEM types and NeuralNetworksExtensions.h for extension types.
 */
typedef enum {
    ANEURALNETWORKS_FLOAT32 = 0,        /* 32-bit IEEE 754 float scalar. */
    ANEURALNETWORKS_INT32 = 1,          /* Signed 32-bit integer scalar. */
    ANEURALNETWORKS_UINT32 = 2,         /* Unsigned 32-bit integer scalar. */
    ANEURALNETWORKS_TENSOR_FLOAT32 = 3, /* Tensor of 32-bit floats. */
    ANEURALNETWORKS_TENSOR_INT32 = 4,   /* Tensor of signed 32-bit integers. */
    /* Tensor of uint8; real = (value - zeroPoint) * scale, zeroPoint in [0, 255]. */
    ANEURALNETWORKS_TENSOR_QUANT8_ASYMM = 5,
    /* Feature level 3. */
    ANEURALNETWORKS_BOOL = 6,                /* 8-bit boolean scalar; non-zero is true. */
    ANEURALNETWORKS_TENSOR_QUANT16_SYMM = 7, /* Tensor of int16; real = value * scale. */
    ANEURALNETWORKS_TENSOR_FLOAT16 = 8,      /* Tensor of IEEE 754 half floats. */
    ANEURALNETWORKS_TENSOR_BOOL8 = 9,        /* Tensor of 8-bit booleans. */
    ANEURALNETWORKS_FLOAT16 = 10,            /* IEEE 754 half float scalar. */
    /* Tensor of int8 with one scale per channel; set the scales with
     * ANeuralNetworksModel_setOperandSymmPerChannelQuantParams. */
    ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL = 11,
    /* Tensor of uint16; real = (value - zeroPoint) * scale, zeroPoint in [0, 65535]. */
    ANEURALNETWORKS_TENSOR_QUANT16_ASYMM = 12,
    ANEURALNETWORKS_TENSOR_QUANT8_SYMM = 13, /* Tensor of int8; real = value * scale. */
    /* Feature level 4. */
    /* Tensor of int8; real = (value - zeroPoint) * scale, zeroPoint in [-128, 127]. */
    ANEURALNETWORKS_TENSOR_QUANT8_ASYMM_SIGNED = 14,
    /* A reference to another model (IF/WHILE bodies); set with
     * ANeuralNetworksModel_setOperandValueFromModel. */
    ANEURALNETWORKS_MODEL = 15,
} OperandCode;

/*
 * Operation types, passed to ANeuralNetworksModel_addOperation. The comment
 * before each group gives the feature level that introduced it.
 */
typedef enum {
    /* Feature level 1. */
    ANEURALNETWORKS_ADD = 0,
    ANEURALNETWORKS_AVERAGE_POOL_2D = 1,
    ANEURALNETWORKS_CONCATENATION = 2,
    ANEURALNETWORKS_CONV_2D = 3,
    ANEURALNETWORKS_DEPTHWISE_CONV_2D = 4,
    ANEURALNETWORKS_DEPTH_TO_SPACE = 5,
    ANEURALNETWORKS_DEQUANTIZE = 6,
    ANEURALNETWORKS_EMBEDDING_LOOKUP = 7,
    ANEURALNETWORKS_FLOOR = 8,
    ANEURALNETWORKS_FULLY_CONNECTED = 9,
    ANEURALNETWORKS_HASHTABLE_LOOKUP = 10,
    ANEURALNETWORKS_L2_NORMALIZATION = 11,
    ANEURALNETWORKS_L2_POOL_2D = 12,
    ANEURALNETWORKS_LOCAL_RESPONSE_NORMALIZATION = 13,
    ANEURALNETWORKS_LOGISTIC = 14,
    ANEURALNETWORKS_LSH_PROJECTION = 15,
    ANEURALNETWORKS_LSTM = 16,
    ANEURALNETWORKS_MAX_POOL_2D = 17,
    ANEURALNETWORKS_MUL = 18,
    ANEURALNETWORKS_RELU = 19,
    ANEURALNETWORKS_RELU1 = 20,
    ANEURALNETWORKS_RELU6 = 21,
    ANEURALNETWORKS_RESHAPE = 22,
    ANEURALNETWORKS_RESIZE_BILINEAR = 23,
    ANEURALNETWORKS_RNN = 24,
    ANEURALNETWORKS_SOFTMAX = 25,
    ANEURALNETWORKS_SPACE_TO_DEPTH = 26,
    ANEURALNETWORKS_SVDF = 27,
    ANEURALNETWORKS_TANH = 28,

    /* Feature level 2. */
    ANEURALNETWORKS_BATCH_TO_SPACE_ND = 29,
    ANEURALNETWORKS_DIV = 30,
    ANEURALNETWORKS_MEAN = 31,
    ANEURALNETWORKS_PAD = 32,
    ANEURALNETWORKS_SPACE_TO_BATCH_ND = 33,
    ANEURALNETWORKS_SQUEEZE = 34,
    ANEURALNETWORKS_STRIDED_SLICE = 35,
    ANEURALNETWORKS_SUB = 36,
    ANEURALNETWORKS_TRANSPOSE = 37,

    /* Feature level 3. */
    ANEURALNETWORKS_ABS = 38,
    ANEURALNETWORKS_ARGMAX = 39,
    ANEURALNETWORKS_ARGMIN = 40,
    ANEURALNETWORKS_AXIS_ALIGNED_BBOX_TRANSFORM = 41,
    ANEURALNETWORKS_BIDIRECTIONAL_SEQUENCE_LSTM = 42,
    ANEURALNETWORKS_BIDIRECTIONAL_SEQUENCE_RNN = 43,
    ANEURALNETWORKS_BOX_WITH_NMS_LIMIT = 44,
    ANEURALNETWORKS_CAST = 45,
    ANEURALNETWORKS_CHANNEL_SHUFFLE = 46,
    ANEURALNETWORKS_DETECTION_POSTPROCESSING = 47,
    ANEURALNETWORKS_EQUAL = 48,
    ANEURALNETWORKS_EXP = 49,
    ANEURALNETWORKS_EXPAND_DIMS = 50,
    ANEURALNETWORKS_GATHER = 51,
    ANEURALNETWORKS_GENERATE_PROPOSALS = 52,
    ANEURALNETWORKS_GREATER = 53,
    ANEURALNETWORKS_GREATER_EQUAL = 54,
    ANEURALNETWORKS_GROUPED_CONV_2D = 55,
    ANEURALNETWORKS_HEATMAP_MAX_KEYPOINT = 56,
    ANEURALNETWORKS_INSTANCE_NORMALIZATION = 57,
    ANEURALNETWORKS_LESS = 58,
    ANEURALNETWORKS_LESS_EQUAL = 59,
    ANEURALNETWORKS_LOG = 60,
    ANEURALNETWORKS_LOGICAL_AND = 61,
    ANEURALNETWORKS_LOGICAL_NOT = 62,
    ANEURALNETWORKS_LOGICAL_OR = 63,
    ANEURALNETWORKS_LOG_SOFTMAX = 64,
    ANEURALNETWORKS_MAXIMUM = 65,
    ANEURALNETWORKS_MINIMUM = 66,
    ANEURALNETWORKS_NEG = 67,
    ANEURALNETWORKS_NOT_EQUAL = 68,
    ANEURALNETWORKS_PAD_V2 = 69,
    ANEURALNETWORKS_POW = 70,
    ANEURALNETWORKS_PRELU = 71,
    ANEURALNETWORKS_QUANTIZE = 72,
    ANEURALNETWORKS_QUANTIZED_16BIT_LSTM = 73,
    ANEURALNETWORKS_RANDOM_MULTINOMIAL = 74,
    ANEURALNETWORKS_REDUCE_ALL = 75,
    ANEURALNETWORKS_REDUCE_ANY = 76,
    ANEURALNETWORKS_REDUCE_MAX = 77,
    ANEURALNETWORKS_REDUCE_MIN = 78,
    ANEURALNETWORKS_REDUCE_PROD = 79,
    ANEURALNETWORKS_REDUCE_SUM = 80,
    ANEURALNETWORKS_ROI_ALIGN = 81,
    ANEURALNETWORKS_ROI_POOLING = 82,
    ANEURALNETWORKS_RSQRT = 83,
    ANEURALNETWORKS_SELECT = 84,
    ANEURALNETWORKS_SIN = 85,
    ANEURALNETWORKS_SLICE = 86,
    ANEURALNETWORKS_SPLIT = 87,
    ANEURALNETWORKS_SQRT = 88,
    ANEURALNETWORKS_TILE = 89,
    ANEURALNETWORKS_TOPK_V2 = 90,
    ANEURALNETWORKS_TRANSPOSE_CONV_2D = 91,
    ANEURALNETWORKS_UNIDIRECTIONAL_SEQUENCE_LSTM = 92,
    ANEURALNETWORKS_UNIDIRECTIONAL_SEQUENCE_RNN = 93,
    ANEURALNETWORKS_RESIZE_NEAREST_NEIGHBOR = 94,

    /* Feature level 4. */
    ANEURALNETWORKS_QUANTIZED_LSTM = 95,
    ANEURALNETWORKS_IF = 96,    /* Runs one of two referenced models on a boolean. */
    ANEURALNETWORKS_WHILE = 97, /* Runs a body model while a condition model is true. */
    ANEURALNETWORKS_ELU = 98,
    ANEURALNETWORKS_HARD_SWISH = 99,
    ANEURALNETWORKS_FILL = 100,
    ANEURALNETWORKS_RANK = 101,

    /* Feature level 6. */
    ANEURALNETWORKS_BATCH_MATMUL = 102,
    ANEURALNETWORKS_PACK = 103,

    /* Feature level 7. */
    ANEURALNETWORKS_MIRROR_PAD = 104,
    ANEURALNETWORKS_REVERSE = 105,
} OperationCode;

/* Activation fused into an operation's output. */
typedef enum {
    ANEURALNETWORKS_FUSED_NONE = 0,
    ANEURALNETWORKS_FUSED_RELU = 1,  /* max(0, x) */
    ANEURALNETWORKS_FUSED_RELU1 = 2, /* clamp to [-1, 1] */
    ANEURALNETWORKS_FUSED_RELU6 = 3, /* clamp to [0, 6] */
} FuseCode;

/* Implicit padding schemes for convolution and pooling operations. */
typedef enum {
    /* Pad so the output size is ceil(input / stride); any odd pixel goes at the end. */
    ANEURALNETWORKS_PADDING_SAME = 1,
    /* No padding; input that does not fill a whole window is dropped. */
    ANEURALNETWORKS_PADDING_VALID = 2,
} PaddingCode;

/* Compilation preference, for ANeuralNetworksCompilation_setPreference. */
typedef enum {
    ANEURALNETWORKS_PREFER_LOW_POWER = 0,          /* Minimize power use. */
    ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER = 1, /* Minimize latency of one run (default). */
    ANEURALNETWORKS_PREFER_SUSTAINED_SPEED = 2,    /* Maximize throughput of repeated runs. */
} PreferenceCode;

/* Device kinds, reported by ANeuralNetworksDevice_getType. */
typedef enum {
    ANEURALNETWORKS_DEVICE_UNKNOWN = 0,     /* The type cannot be reported. */
    ANEURALNETWORKS_DEVICE_OTHER = 1,       /* None of the kinds below. */
    ANEURALNETWORKS_DEVICE_CPU = 2,         /* Runs models on CPU cores. */
    ANEURALNETWORKS_DEVICE_GPU = 3,         /* A GPU that also serves graphics APIs. */
    ANEURALNETWORKS_DEVICE_ACCELERATOR = 4, /* A dedicated machine-learning accelerator. */
} DeviceTypeCode;

/*
 * NNAPI feature levels, as reported by ANeuralNetworksDevice_getFeatureLevel and
 * ANeuralNetworks_getRuntimeFeatureLevel. Levels 1..5 equal the Android API level
 * that introduced them; later levels are unrelated to API levels.
 */
typedef enum {
    ANEURALNETWORKS_FEATURE_LEVEL_1 = 27,      /* Android 8.1 */
    ANEURALNETWORKS_FEATURE_LEVEL_2 = 28,      /* Android 9 */
    ANEURALNETWORKS_FEATURE_LEVEL_3 = 29,      /* Android 10 */
    ANEURALNETWORKS_FEATURE_LEVEL_4 = 30,      /* Android 11 */
    ANEURALNETWORKS_FEATURE_LEVEL_5 = 31,      /* Android 12 */
    ANEURALNETWORKS_FEATURE_LEVEL_6 = 1000006,
    ANEURALNETWORKS_FEATURE_LEVEL_7 = 1000007,
    ANEURALNETWORKS_FEATURE_LEVEL_8 = 1000008,
} FeatureLevelCode;

/* Result codes returned by the API functions. Anything but NO_ERROR is a failure. */
typedef enum {
    ANEURALNETWORKS_NO_ERROR = 0,
    ANEURALNETWORKS_OUT_OF_MEMORY = 1,
    ANEURALNETWORKS_INCOMPLETE = 2,
    ANEURALNETWORKS_UNEXPECTED_NULL = 3, /* A required pointer argument was NULL. */
    ANEURALNETWORKS_BAD_DATA = 4,        /* Invalid argument, model, execution or data. */
    ANEURALNETWORKS_OP_FAILED = 5,       /* The operation (e.g. an execution) failed. */
    ANEURALNETWORKS_BAD_STATE = 6,       /* The object is in the wrong state for the call. */
    ANEURALNETWORKS_UNMAPPABLE = 7,      /* A memory could not be mapped. */
    ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE = 8, /* An output buffer is too small. */
    ANEURALNETWORKS_UNAVAILABLE_DEVICE = 9,       /* A device is not available. */
    /* Feature level 4. */
    ANEURALNETWORKS_MISSED_DEADLINE_TRANSIENT = 10,     /* Deadline missed; retry may work. */
    ANEURALNETWORKS_MISSED_DEADLINE_PERSISTENT = 11,    /* Deadline missed; retry unlikely to. */
    ANEURALNETWORKS_RESOURCE_EXHAUSTED_TRANSIENT = 12,  /* Out of resources; retry may work. */
    ANEURALNETWORKS_RESOURCE_EXHAUSTED_PERSISTENT = 13, /* Out of resources; retry unlikely to. */
    ANEURALNETWORKS_DEAD_OBJECT = 14,                   /* The object (e.g. device) is dead. */
} ResultCode;

/* ANeuralNetworksModel_setOperandValue copies values of at most this many bytes;
 * larger values are referenced, not copied. */
enum { ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES = 128 };

/* Size in bytes of the token passed to ANeuralNetworksCompilation_setCaching. */
enum { ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN = 32 };

/* Durations reported by ANeuralNetworksExecution_getDuration, in nanoseconds. */
typedef enum {
    ANEURALNETWORKS_DURATION_ON_HARDWARE = 0, /* Time on the accelerator. */
    ANEURALNETWORKS_DURATION_IN_DRIVER = 1,   /* Time in the driver, hardware included. */
    /* Feature level 4: as above, counted from when all dependencies were signaled. */
    ANEURALNETWORKS_FENCED_DURATION_ON_HARDWARE = 2,
    ANEURALNETWORKS_FENCED_DURATION_IN_DRIVER = 3,
} DurationCode;

/* Relative priority, for ANeuralNetworksCompilation_setPriority. */
typedef enum {
    ANEURALNETWORKS_PRIORITY_LOW = 90,
    ANEURALNETWORKS_PRIORITY_MEDIUM = 100,
    ANEURALNETWORKS_PRIORITY_HIGH = 110,
    ANEURALNETWORKS_PRIORITY_DEFAULT = ANEURALNETWORKS_PRIORITY_MEDIUM,
} PriorityCode;

/* Opaque handles. */

/* A region of memory (file-backed, shared, or device-native) usable for operand
 * values and execution inputs/outputs. */
typedef struct ANeuralNetworksMemory ANeuralNetworksMemory;
/* A graph of operands and operations under construction or finished. */
typedef struct ANeuralNetworksModel ANeuralNetworksModel;
/* A model compiled for one or more devices. */
typedef struct ANeuralNetworksCompilation ANeuralNetworksCompilation;
/* One application of a compilation to a set of inputs and outputs. */
typedef struct ANeuralNetworksExecution ANeuralNetworksExecution;

/* Scales for an ANEURALNETWORKS_TENSOR_QUANT8_SYMM_PER_CHANNEL operand. */
typedef struct ANeuralNetworksSymmPerChannelQuantParams {
    uint32_t channelDim;  /* Index of the channel dimension. */
    uint32_t scaleCount;  /* Number of entries in scales; equals dimensions[channelDim]. */
    const float* scales;  /* One positive scale per channel. */
} ANeuralNetworksSymmPerChannelQuantParams;

/* A context for a rapid sequence of synchronous executions of one compilation. */
typedef struct ANeuralNetworksBurst ANeuralNetworksBurst;

/*
 * The type of an operand. For a tensor, an unknown dimension is 0; an unknown
 * rank is dimensionCount 0 with dimensions NULL. Scalars have dimensionCount 0
 * and dimensions NULL. scale and zeroPoint are 0 where they do not apply.
 */
typedef struct ANeuralNetworksOperandType {
    int32_t type;               /* An OperandCode, OEM or extension type. */
    uint32_t dimensionCount;    /* Rank. */
    const uint32_t* dimensions; /* dimensionCount entries. */
    float scale;                /* Quantization scale. */
    int32_t zeroPoint;          /* Quantization zero point. */
} ANeuralNetworksOperandType;

/* An OperationCode, OEM or extension operation type. */
typedef int32_t ANeuralNetworksOperationType;

/* Signaled when an asynchronous execution completes; may be backed by a sync fence. */
typedef struct ANeuralNetworksEvent ANeuralNetworksEvent;
/* A device (driver) that can run models. */
typedef struct ANeuralNetworksDevice ANeuralNetworksDevice;
/* A description of a device-native memory, built from compilation input/output roles. */
typedef struct ANeuralNetworksMemoryDesc ANeuralNetworksMemoryDesc;

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_TYPES_H */
