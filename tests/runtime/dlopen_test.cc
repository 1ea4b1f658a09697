// libneuralnetworks.so as TensorFlow Lite's NNAPI delegate loads it: dlopen, then dlsym of every
// function by name. Every function the headers declare is exported (and nothing else under the
// NDK's LIBNEURALNETWORKS version), and calling through the resolved pointers works.
#include <android/NeuralNetworks.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

std::string contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The names of the functions `header` declares ("int ANeuralNetworksX_y(").
std::set<std::string> declaredIn(const std::string& header) {
  std::set<std::string> names;
  const std::string text = contents(header);
  const std::regex declaration(R"((?:int|void|uint64_t|int64_t)\s+(ANeuralNetworks\w+)\s*\()");
  for (std::sregex_iterator it(text.begin(), text.end(), declaration), end; it != end; ++it) names.insert((*it)[1]);
  return names;
}

// The names the version script exports.
std::set<std::string> exportedBy(const std::string& script) {
  std::set<std::string> names;
  const std::string text = contents(script);
  const std::regex entry(R"((ANeuralNetworks\w+);)");
  for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it) names.insert((*it)[1]);
  return names;
}

TEST(DlopenTest, EveryDeclaredFunctionResolvesByName) {
  std::set<std::string> declared = declaredIn("runtime/include/android/NeuralNetworks.h");
  for (const auto& name : declaredIn("runtime/include/android/NeuralNetworksExtensions.h")) declared.insert(name);
  ASSERT_GE(declared.size(), 72u) << "the headers declare fewer functions than the NDK's feature level 5";
  EXPECT_EQ(exportedBy("runtime/libneuralnetworks.lds"), declared) << "the version script and the headers differ";

  void* library = dlopen("runtime/libneuralnetworks.so", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(library, nullptr) << dlerror();
  for (const std::string& name : declared) {
    EXPECT_NE(dlsym(library, name.c_str()), nullptr) << name << " is not exported";
    EXPECT_NE(dlvsym(library, name.c_str(), "LIBNEURALNETWORKS"), nullptr) << name << " is not in LIBNEURALNETWORKS";
  }
  // What the library keeps private stays private: no hal, proxy or protobuf symbols.
  EXPECT_EQ(dlsym(library, "_ZN8nnremote3hal13validateModelERKNS0_5ModelEb"), nullptr);

  using GetLevel = int64_t (*)();
  auto level = reinterpret_cast<GetLevel>(dlsym(library, "ANeuralNetworks_getRuntimeFeatureLevel"));
  ASSERT_NE(level, nullptr);
  EXPECT_GE(level(), ANEURALNETWORKS_FEATURE_LEVEL_1);
  using GetCount = int (*)(uint32_t*);
  auto count = reinterpret_cast<GetCount>(dlsym(library, "ANeuralNetworks_getDeviceCount"));
  ASSERT_NE(count, nullptr);
  uint32_t devices = 0;
  EXPECT_EQ(count(&devices), ANEURALNETWORKS_NO_ERROR);
  EXPECT_GE(devices, 1u) << "nnapi-reference is always there";
  EXPECT_EQ(count(nullptr), ANEURALNETWORKS_UNEXPECTED_NULL);
}

}  // namespace
