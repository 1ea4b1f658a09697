/*
 * NeuralNetworksExtensions.h: the NNAPI vendor-extension functions.
 *
 * ABI-compatible with the Android NDK's <android/NeuralNetworksExtensions.h>
 * (feature level 3, Android API 29). An extension operand or operation type is
 * (extension prefix << 16) | code within the extension; the prefix is assigned
 * per model by the two get*Type functions below.
 *
 * The NDK has no extension operand-type-information struct; the similarly named
 * type belongs to the updatable-driver support library, not this API.
 *
 * Written for nnremote.
 */

#ifndef ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_EXTENSIONS_H
#define ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_EXTENSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "NeuralNetworks.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Sets *isExtensionSupported to whether the device's driver supports the named
 * extension. */
int ANeuralNetworksDevice_getExtensionSupport(const ANeuralNetworksDevice* device,
                                              const char* extensionName,
                                              bool* isExtensionSupported);

/* Computes, for this model, the operand type for code operandCodeWithinExtension
 * of the named extension. */
int ANeuralNetworksModel_getExtensionOperandType(ANeuralNetworksModel* model,
                                                 const char* extensionName,
                                                 uint16_t operandCodeWithinExtension,
                                                 int32_t* type);

/* Computes, for this model, the operation type for code operationCodeWithinExtension
 * of the named extension. */
int ANeuralNetworksModel_getExtensionOperationType(ANeuralNetworksModel* model,
                                                   const char* extensionName,
                                                   uint16_t operationCodeWithinExtension,
                                                   ANeuralNetworksOperationType* type);

/* Attaches extension-specific parameters (copied) to operand index. */
int ANeuralNetworksModel_setOperandExtensionData(ANeuralNetworksModel* model, int32_t index,
                                                 const void* data, size_t length);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_EXTENSIONS_H */
