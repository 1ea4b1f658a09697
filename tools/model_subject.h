// The model a command works on, named by --cases=FILE [--model=NAME] (a model of a
// conformance-format file) or --model=NAME (a built-in), with inputs to run it on.
#ifndef NNREMOTE_TOOLS_MODEL_SUBJECT_H_
#define NNREMOTE_TOOLS_MODEL_SUBJECT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hal/result.h"
#include "hal/types.h"

namespace nnremote::tools {

struct ModelSubject {
  std::string name;
  hal::Model model;
  std::vector<std::vector<uint8_t>> inputs;
  std::vector<size_t> outputSizes;  // bytes of each output buffer
};

// From --cases and --model: the model of that name in the file (default: its first), or without
// --cases the built-in `--model` (default `defaultBuiltIn`).
hal::Result<ModelSubject> modelSubjectFromFlags(const std::string& defaultBuiltIn);

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_MODEL_SUBJECT_H_
