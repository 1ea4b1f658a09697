/* The smallest NNAPI program: out = a + b on two float vectors, through nnremote's
 * libneuralnetworks.so. It uses only the NDK's C API, so the same source builds against
 * Android's NDK. Run it against an emulator:
 *   npu_emulator &                       (listens on unix:/tmp/nnremote.sock)
 *   LD_LIBRARY_PATH=bazel-bin/runtime ./add_two_vectors
 * or choose where the devices are: NNREMOTE_TARGETS=unix:/path,HOST:PORT. */
#include <android/NeuralNetworks.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    int code_ = (call);                                                          \
    if (code_ != ANEURALNETWORKS_NO_ERROR) {                                     \
      fprintf(stderr, "add_two_vectors: %s failed with %d\n", #call, code_);     \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

int main(void) {
  uint32_t deviceCount = 0;
  CHECK(ANeuralNetworks_getDeviceCount(&deviceCount));
  for (uint32_t i = 0; i < deviceCount; ++i) {
    ANeuralNetworksDevice* device = NULL;
    const char* name = NULL;
    int64_t level = 0;
    CHECK(ANeuralNetworks_getDevice(i, &device));
    CHECK(ANeuralNetworksDevice_getName(device, &name));
    CHECK(ANeuralNetworksDevice_getFeatureLevel(device, &level));
    printf("device %u: %s (feature level %lld)\n", i, name, (long long)level);
  }

  /* out = a + b, with a and b float32 [4] and no fused activation. */
  ANeuralNetworksModel* model = NULL;
  CHECK(ANeuralNetworksModel_create(&model));
  uint32_t dims[1] = {4};
  ANeuralNetworksOperandType vector = {ANEURALNETWORKS_TENSOR_FLOAT32, 1, dims, 0.0f, 0};
  ANeuralNetworksOperandType scalar = {ANEURALNETWORKS_INT32, 0, NULL, 0.0f, 0};
  CHECK(ANeuralNetworksModel_addOperand(model, &vector)); /* 0: a */
  CHECK(ANeuralNetworksModel_addOperand(model, &vector)); /* 1: b */
  CHECK(ANeuralNetworksModel_addOperand(model, &scalar)); /* 2: activation */
  CHECK(ANeuralNetworksModel_addOperand(model, &vector)); /* 3: out */
  int32_t none = ANEURALNETWORKS_FUSED_NONE;
  CHECK(ANeuralNetworksModel_setOperandValue(model, 2, &none, sizeof none));
  uint32_t addInputs[3] = {0, 1, 2}, addOutputs[1] = {3};
  CHECK(ANeuralNetworksModel_addOperation(model, ANEURALNETWORKS_ADD, 3, addInputs, 1, addOutputs));
  uint32_t modelInputs[2] = {0, 1}, modelOutputs[1] = {3};
  CHECK(ANeuralNetworksModel_identifyInputsAndOutputs(model, 2, modelInputs, 1, modelOutputs));
  CHECK(ANeuralNetworksModel_finish(model));

  ANeuralNetworksCompilation* compilation = NULL;
  CHECK(ANeuralNetworksCompilation_create(model, &compilation));
  CHECK(ANeuralNetworksCompilation_setPreference(compilation, ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER));
  CHECK(ANeuralNetworksCompilation_finish(compilation));

  float a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, out[4];
  memset(out, 0, sizeof out);
  ANeuralNetworksExecution* execution = NULL;
  CHECK(ANeuralNetworksExecution_create(compilation, &execution));
  CHECK(ANeuralNetworksExecution_setInput(execution, 0, NULL, a, sizeof a));
  CHECK(ANeuralNetworksExecution_setInput(execution, 1, NULL, b, sizeof b));
  CHECK(ANeuralNetworksExecution_setOutput(execution, 0, NULL, out, sizeof out));
  ANeuralNetworksEvent* event = NULL;
  CHECK(ANeuralNetworksExecution_startCompute(execution, &event));
  CHECK(ANeuralNetworksEvent_wait(event));
  printf("out = %g %g %g %g\n", out[0], out[1], out[2], out[3]);

  ANeuralNetworksEvent_free(event);
  ANeuralNetworksExecution_free(execution);
  ANeuralNetworksCompilation_free(compilation);
  ANeuralNetworksModel_free(model);
  return out[0] == 11 && out[1] == 22 && out[2] == 33 && out[3] == 44 ? 0 : 1;
}
