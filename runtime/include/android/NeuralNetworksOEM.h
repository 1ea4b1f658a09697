/*
 * NeuralNetworksOEM.h: the deprecated OEM operand and operation types of NNAPI
 * (superseded by extensions, see NeuralNetworksExtensions.h). Their meaning is
 * defined by the device vendor.
 *
 * ABI-compatible with the Android NDK's <android/NeuralNetworksOEM.h>.
 *
 * Written for nnremote.
 */

#ifndef ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_OEM_H
#define ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_OEM_H

/* Additional OperandCode values. */
enum {
    ANEURALNETWORKS_OEM_SCALAR = 10000,      /* Vendor-defined scalar. */
    ANEURALNETWORKS_TENSOR_OEM_BYTE = 10001, /* Tensor of vendor-defined bytes. */
};

/* Additional OperationCode value. Before feature level 4, a model using it must
 * either hold only that operation or have every tensor operand fully specified. */
enum {
    ANEURALNETWORKS_OEM_OPERATION = 10000, /* Vendor-defined operation. */
};

#endif  /* ANDROID_PACKAGES_MODULES_NEURALNETWORKS_RUNTIME_NEURAL_NETWORKS_OEM_H */
