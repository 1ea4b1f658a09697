#include "tools/model_subject.h"

#include <algorithm>

#include "conformance/cts_loader.h"
#include "tools/models/built_in.h"
#include "tools/nnremote_flags.h"

namespace nnremote::tools {

hal::Result<ModelSubject> modelSubjectFromFlags(const std::string& defaultBuiltIn) {
  const std::string casesPath = absl::GetFlag(FLAGS_cases), modelName = absl::GetFlag(FLAGS_model);
  if (casesPath.empty()) {
    const std::string builtInName = modelName.empty() ? defaultBuiltIn : modelName;
    NN_ASSIGN_OR_RETURN(auto built, builtInModel(builtInName));
    return ModelSubject{builtInName, built.model, {built.input}, built.outputSizes};
  }
  NN_ASSIGN_OR_RETURN(auto cases, conformance::loadSpecFile(casesPath, casesPath));
  for (const auto& testCase : cases) {
    if (!modelName.empty() && testCase.name != modelName) continue;
    ModelSubject subject{testCase.fullName(), testCase.model, testCase.inputs, {}};
    for (const auto& output : testCase.outputs) subject.outputSizes.push_back(std::max<size_t>(output.data.size(), 1));
    return subject;
  }
  auto error = hal::invalidArgument();
  error << casesPath << " has no model named '" << modelName << "' (models:";
  for (const auto& testCase : cases) error << " " << testCase.name;
  return error << ")";
}

}  // namespace nnremote::tools
