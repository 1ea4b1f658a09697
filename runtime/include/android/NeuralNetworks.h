/*
 * NeuralNetworks.h: the functions of the Android Neural Networks API (NNAPI)
 * C interface, as implemented by nnremote's libneuralnetworks.so.
 *
 * ABI-compatible with the Android NDK's <android/NeuralNetworks.h>: same function
 * names, parameter types and order, and return types, for every function through
 * NNAPI feature level 8 (feature levels 6..8 added no functions). Every function
 * is always declared; there is no API-level gating.
 *
 * Omitted on purpose: ANeuralNetworksMemory_createFromAHardwareBuffer. A Linux
 * host has no AHardwareBuffer, so nnremote neither declares nor exports it.
 *
 * Unless stated otherwise, functions returning int return a ResultCode:
 * ANEURALNETWORKS_NO_ERROR on success, ANEURALNETWORKS_UNEXPECTED_NULL for a NULL
 * required argument, ANEURALNETWORKS_BAD_DATA for an invalid argument, and
 * ANEURALNETWORKS_BAD_STATE when the object is in the wrong state (for example
 * modified after *_finish). "_free" functions accept NULL and do nothing.
 *
 * Written for nnremote.
 */

#ifndef ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_H
#define ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "NeuralNetworksTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Feature level 1 (Android API 27)
 * ------------------------------------------------------------------------- */

/* Maps size bytes of fd at offset (page-aligned) with protection protect
 * (PROT_NONE or PROT_READ|PROT_WRITE bits). fd is duplicated. *memory is NULL on
 * failure; ANEURALNETWORKS_UNMAPPABLE if the fd cannot be mapped. */
int ANeuralNetworksMemory_createFromFd(size_t size, int protect, int fd, size_t offset,
                                       ANeuralNetworksMemory** memory);

/* Releases a memory object. The caller must ensure nothing still uses it. */
void ANeuralNetworksMemory_free(ANeuralNetworksMemory* memory);

/* Creates an empty model. *model is NULL on failure. */
int ANeuralNetworksModel_create(ANeuralNetworksModel** model);

/* Destroys a model, finished or not. */
void ANeuralNetworksModel_free(ANeuralNetworksModel* model);

/* Validates and freezes the model; required before compiling it. Call once.
 * ANEURALNETWORKS_BAD_DATA if the model is invalid. */
int ANeuralNetworksModel_finish(ANeuralNetworksModel* model);

/* Appends an operand; operands are numbered 0, 1, ... in the order added.
 * Neither *type nor its dimensions need outlive the call. */
int ANeuralNetworksModel_addOperand(ANeuralNetworksModel* model,
                                    const ANeuralNetworksOperandType* type);

/* Gives operand index a constant value. Values up to
 * ANEURALNETWORKS_MAX_SIZE_OF_IMMEDIATELY_COPIED_VALUES bytes are copied; larger
 * buffers are referenced and must outlive the model. buffer NULL with length 0
 * marks an optional operand as omitted. */
int ANeuralNetworksModel_setOperandValue(ANeuralNetworksModel* model, int32_t index,
                                         const void* buffer, size_t length);

/* Gives operand index a constant value held in memory at [offset, offset+length).
 * Not copied: the memory must outlive the model and stay unchanged. */
int ANeuralNetworksModel_setOperandValueFromMemory(ANeuralNetworksModel* model, int32_t index,
                                                   const ANeuralNetworksMemory* memory,
                                                   size_t offset, size_t length);

/* Appends an operation of the given type reading operands inputs[0..inputCount)
 * and writing outputs[0..outputCount). A NULL list is UNEXPECTED_NULL, even
 * with a count of 0. */
int ANeuralNetworksModel_addOperation(ANeuralNetworksModel* model,
                                      ANeuralNetworksOperationType type, uint32_t inputCount,
                                      const uint32_t* inputs, uint32_t outputCount,
                                      const uint32_t* outputs);

/* Declares the model's inputs and outputs (operand indexes, in the order the
 * execution functions will refer to them). A NULL list is UNEXPECTED_NULL, even
 * with a count of 0. */
int ANeuralNetworksModel_identifyInputsAndOutputs(ANeuralNetworksModel* model, uint32_t inputCount,
                                                  const uint32_t* inputs, uint32_t outputCount,
                                                  const uint32_t* outputs);

/* Creates a compilation of a finished model for the devices the runtime picks.
 * The model must outlive it. *compilation is NULL on failure; BAD_DATA if the
 * model is invalid. */
int ANeuralNetworksCompilation_create(ANeuralNetworksModel* model,
                                      ANeuralNetworksCompilation** compilation);

/* Destroys a compilation, finished or not. */
void ANeuralNetworksCompilation_free(ANeuralNetworksCompilation* compilation);

/* Sets a PreferenceCode; the default is ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER. */
int ANeuralNetworksCompilation_setPreference(ANeuralNetworksCompilation* compilation,
                                             int32_t preference);

/* Compiles; required before creating executions or bursts. Call once. May
 * return ANEURALNETWORKS_MISSED_DEADLINE_* if a compilation timeout was set. */
int ANeuralNetworksCompilation_finish(ANeuralNetworksCompilation* compilation);

/* Creates an execution of a finished compilation, which must outlive it.
 * *execution is NULL on failure. */
int ANeuralNetworksExecution_create(ANeuralNetworksCompilation* compilation,
                                    ANeuralNetworksExecution** execution);

/* Destroys an execution that is not running. */
void ANeuralNetworksExecution_free(ANeuralNetworksExecution* execution);

/* Binds input index (position in the model's input list) to buffer. type may be
 * NULL, or complete dimensions left unknown in the model. length must equal the
 * data size (or exceed it if padding is enabled). buffer NULL, length 0 omits an
 * optional input. The buffer must outlive the computation. */
int ANeuralNetworksExecution_setInput(ANeuralNetworksExecution* execution, int32_t index,
                                      const ANeuralNetworksOperandType* type, const void* buffer,
                                      size_t length);

/* As ANeuralNetworksExecution_setInput, reading from memory at offset. For memory
 * from ANeuralNetworksMemory_createFromDesc, offset and length must be 0. */
int ANeuralNetworksExecution_setInputFromMemory(ANeuralNetworksExecution* execution, int32_t index,
                                                const ANeuralNetworksOperandType* type,
                                                const ANeuralNetworksMemory* memory, size_t offset,
                                                size_t length);

/* Binds output index to buffer. The output's shape may be left unknown (feature
 * level 3+); query it afterwards with getOutputOperandRank/Dimensions. */
int ANeuralNetworksExecution_setOutput(ANeuralNetworksExecution* execution, int32_t index,
                                       const ANeuralNetworksOperandType* type, void* buffer,
                                       size_t length);

/* As ANeuralNetworksExecution_setOutput, writing to memory at offset. */
int ANeuralNetworksExecution_setOutputFromMemory(ANeuralNetworksExecution* execution, int32_t index,
                                                 const ANeuralNetworksOperandType* type,
                                                 const ANeuralNetworksMemory* memory, size_t offset,
                                                 size_t length);

/* Starts the execution asynchronously; *event is signaled on completion (NULL on
 * error). Wait on the event, then free it. */
int ANeuralNetworksExecution_startCompute(ANeuralNetworksExecution* execution,
                                          ANeuralNetworksEvent** event);

/* Blocks until the event's execution completes; returns that execution's result
 * (e.g. OP_FAILED, OUTPUT_INSUFFICIENT_SIZE, MISSED_DEADLINE_*, UNMAPPABLE). */
int ANeuralNetworksEvent_wait(ANeuralNetworksEvent* event);

/* Destroys an event. */
void ANeuralNetworksEvent_free(ANeuralNetworksEvent* event);

/* ---------------------------------------------------------------------------
 * Feature level 2 (Android API 28)
 * ------------------------------------------------------------------------- */

/* Allows TENSOR_FLOAT32 arithmetic at float16 range and precision. The main
 * model's setting overrides referenced models'. */
int ANeuralNetworksModel_relaxComputationFloat32toFloat16(ANeuralNetworksModel* model, bool allow);

/* ---------------------------------------------------------------------------
 * Feature level 3 (Android API 29)
 * ------------------------------------------------------------------------- */

/* Sets the per-channel scales of a TENSOR_QUANT8_SYMM_PER_CHANNEL operand; needed
 * before ANeuralNetworksModel_finish. *channelQuant is copied. */
int ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
        ANeuralNetworksModel* model, int32_t index,
        const ANeuralNetworksSymmPerChannelQuantParams* channelQuant);

/* Number of available devices. */
int ANeuralNetworks_getDeviceCount(uint32_t* numDevices);

/* Device devIndex (< device count); the same handle every time. BAD_DATA if the
 * index is out of range. */
int ANeuralNetworks_getDevice(uint32_t devIndex, ANeuralNetworksDevice** device);

/* Device name ("VENDOR-DEVICE" from feature level 3), UTF-8, valid for the life
 * of the process. */
int ANeuralNetworksDevice_getName(const ANeuralNetworksDevice* device, const char** name);

/* Device kind as a DeviceTypeCode. */
int ANeuralNetworksDevice_getType(const ANeuralNetworksDevice* device, int32_t* type);

/* Driver version string, UTF-8, valid for the life of the process. */
int ANeuralNetworksDevice_getVersion(const ANeuralNetworksDevice* device, const char** version);

/* Device feature level as a FeatureLevelCode (never above the runtime's). */
int ANeuralNetworksDevice_getFeatureLevel(const ANeuralNetworksDevice* device,
                                          int64_t* featureLevel);

/* Fills supportedOps[i] (one per operation, in the order added) with whether any
 * of the given devices supports operation i of a finished model. devices must not
 * repeat. */
int ANeuralNetworksModel_getSupportedOperationsForDevices(
        const ANeuralNetworksModel* model, const ANeuralNetworksDevice* const* devices,
        uint32_t numDevices, bool* supportedOps);

/* As ANeuralNetworksCompilation_create, restricted to the given devices, with no
 * fallback to other devices. */
int ANeuralNetworksCompilation_createForDevices(ANeuralNetworksModel* model,
                                                const ANeuralNetworksDevice* const* devices,
                                                uint32_t numDevices,
                                                ANeuralNetworksCompilation** compilation);

/* Enables compilation caching in cacheDir under token
 * (ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN bytes, unique per model). */
int ANeuralNetworksCompilation_setCaching(ANeuralNetworksCompilation* compilation,
                                          const char* cacheDir, const uint8_t* token);

/* Runs the execution and blocks until it completes. */
int ANeuralNetworksExecution_compute(ANeuralNetworksExecution* execution);

/* Rank of output index after the execution completed. OUTPUT_INSUFFICIENT_SIZE if
 * its buffer was too small; BAD_DATA if index is invalid. */
int ANeuralNetworksExecution_getOutputOperandRank(ANeuralNetworksExecution* execution,
                                                  int32_t index, uint32_t* rank);

/* Dimensions of output index (dimensions holds rank entries) after completion.
 * BAD_DATA also if the output is a scalar. */
int ANeuralNetworksExecution_getOutputOperandDimensions(ANeuralNetworksExecution* execution,
                                                        int32_t index, uint32_t* dimensions);

/* Creates a burst for a finished compilation, which must outlive it. */
int ANeuralNetworksBurst_create(ANeuralNetworksCompilation* compilation,
                                ANeuralNetworksBurst** burst);

/* Destroys a burst. */
void ANeuralNetworksBurst_free(ANeuralNetworksBurst* burst);

/* Runs the execution synchronously on burst (same compilation). One execution
 * per burst at a time, otherwise BAD_STATE. */
int ANeuralNetworksExecution_burstCompute(ANeuralNetworksExecution* execution,
                                          ANeuralNetworksBurst* burst);

/* (ANeuralNetworksMemory_createFromAHardwareBuffer belongs here in the NDK; it is
 * omitted, see the top of this file.) */

/* Requests timing measurement; the compilation must be for exactly one device. */
int ANeuralNetworksExecution_setMeasureTiming(ANeuralNetworksExecution* execution, bool measure);

/* A completed execution's duration (DurationCode) in nanoseconds; UINT64_MAX if
 * not measured or not available. */
int ANeuralNetworksExecution_getDuration(const ANeuralNetworksExecution* execution,
                                         int32_t durationCode, uint64_t* duration);

/* ---------------------------------------------------------------------------
 * Feature level 4 (Android API 30)
 * ------------------------------------------------------------------------- */

/* Creates an empty memory descriptor. */
int ANeuralNetworksMemoryDesc_create(ANeuralNetworksMemoryDesc** desc);

/* Destroys a memory descriptor; memories created from it stay valid. */
void ANeuralNetworksMemoryDesc_free(ANeuralNetworksMemoryDesc* desc);

/* Declares the memory will serve as input index of executions of compilation
 * (finished, and outliving desc), with a usage hint frequency in (0, 1]. */
int ANeuralNetworksMemoryDesc_addInputRole(ANeuralNetworksMemoryDesc* desc,
                                           const ANeuralNetworksCompilation* compilation,
                                           uint32_t index, float frequency);

/* As ANeuralNetworksMemoryDesc_addInputRole, for output index. */
int ANeuralNetworksMemoryDesc_addOutputRole(ANeuralNetworksMemoryDesc* desc,
                                            const ANeuralNetworksCompilation* compilation,
                                            uint32_t index, float frequency);

/* Sets the memory's shape (0 for unknown axes); must agree with all roles. */
int ANeuralNetworksMemoryDesc_setDimensions(ANeuralNetworksMemoryDesc* desc, uint32_t rank,
                                            const uint32_t* dimensions);

/* Freezes the descriptor; needed before ANeuralNetworksMemory_createFromDesc. */
int ANeuralNetworksMemoryDesc_finish(ANeuralNetworksMemoryDesc* desc);

/* Allocates an uninitialized device memory matching a finished descriptor.
 * OP_FAILED if an unknown shape is not supported for these roles. */
int ANeuralNetworksMemory_createFromDesc(const ANeuralNetworksMemoryDesc* desc,
                                         ANeuralNetworksMemory** memory);

/* Copies src's contents into dst (same logical size, or compatible shapes for
 * memories from descriptors). */
int ANeuralNetworksMemory_copy(const ANeuralNetworksMemory* src, const ANeuralNetworksMemory* dst);

/* Blocks until the device is alive again (after ANEURALNETWORKS_DEAD_OBJECT). */
int ANeuralNetworksDevice_wait(const ANeuralNetworksDevice* device);

/* Makes operand index (type ANEURALNETWORKS_MODEL) refer to a finished model,
 * which must outlive this one. */
int ANeuralNetworksModel_setOperandValueFromModel(ANeuralNetworksModel* model, int32_t index,
                                                  const ANeuralNetworksModel* value);

/* Sets a PriorityCode relative to the application's other work on the device. */
int ANeuralNetworksCompilation_setPriority(ANeuralNetworksCompilation* compilation, int priority);

/* Hint: abandon ANeuralNetworksCompilation_finish after duration ns (0 =
 * infinite). Needs a single-device compilation, otherwise BAD_DATA. */
int ANeuralNetworksCompilation_setTimeout(ANeuralNetworksCompilation* compilation,
                                          uint64_t duration);

/* Hint: abandon the computation after duration ns (0 = infinite). Needs a
 * single-device compilation, otherwise BAD_DATA. */
int ANeuralNetworksExecution_setTimeout(ANeuralNetworksExecution* execution, uint64_t duration);

/* Limit in ns for each WHILE loop; capped at ANeuralNetworks_getMaximumLoopTimeout.
 * BAD_STATE once the execution has started. */
int ANeuralNetworksExecution_setLoopTimeout(ANeuralNetworksExecution* execution, uint64_t duration);

/* Default WHILE loop timeout, in nanoseconds. */
uint64_t ANeuralNetworks_getDefaultLoopTimeout(void);

/* Largest accepted WHILE loop timeout, in nanoseconds. */
uint64_t ANeuralNetworks_getMaximumLoopTimeout(void);

/* Wraps a sync fence fd (duplicated, not taken) in a new event. */
int ANeuralNetworksEvent_createFromSyncFenceFd(int sync_fence_fd, ANeuralNetworksEvent** event);

/* Returns a new fd (owned by the caller) for the event's sync fence; -1 and
 * BAD_DATA if the event is not fence-backed. */
int ANeuralNetworksEvent_getSyncFenceFd(const ANeuralNetworksEvent* event, int* sync_fence_fd);

/* Starts the execution once all dependencies are signaled; *event is signaled on
 * completion. duration (ns, 0 = none) is a timeout hint counted from then; non-zero
 * needs a single-device compilation. All outputs must be fully specified. */
int ANeuralNetworksExecution_startComputeWithDependencies(
        ANeuralNetworksExecution* execution, const ANeuralNetworksEvent* const* dependencies,
        uint32_t num_dependencies, uint64_t duration, ANeuralNetworksEvent** event);

/* ---------------------------------------------------------------------------
 * Feature level 5 (Android API 31)
 * ------------------------------------------------------------------------- */

/* The runtime's feature level, a FeatureLevelCode (not an API level). */
int64_t ANeuralNetworks_getRuntimeFeatureLevel(void);

/* Allows input/output lengths larger than the data (end padding). Must precede
 * any setInput/setOutput call, otherwise BAD_STATE. */
int ANeuralNetworksExecution_enableInputAndOutputPadding(ANeuralNetworksExecution* execution,
                                                         bool enable);

/* Preferred alignment (a power of 2) of input index's buffer or memory offset.
 * BAD_STATE if the compilation is not finished; BAD_DATA if index is out of range. */
int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForInput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment);

/* Preferred end padding (a power of 2) of input index's length. */
int ANeuralNetworksCompilation_getPreferredMemoryPaddingForInput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding);

/* Preferred alignment (a power of 2) of output index's buffer or memory offset. */
int ANeuralNetworksCompilation_getPreferredMemoryAlignmentForOutput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* alignment);

/* Preferred end padding (a power of 2) of output index's length. */
int ANeuralNetworksCompilation_getPreferredMemoryPaddingForOutput(
        const ANeuralNetworksCompilation* compilation, uint32_t index, uint32_t* padding);

/* Lets the execution be computed more than once (not concurrently); it cannot be
 * modified between computations. BAD_STATE once it has been scheduled. */
int ANeuralNetworksExecution_setReusable(ANeuralNetworksExecution* execution, bool reusable);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_H */
