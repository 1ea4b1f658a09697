#include "conformance/cts_loader.h"

#include <google/protobuf/util/json_util.h>
#include <limits.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hal/file_contents.h"
#include "hal/operand_types.h"
#include "conformance/shared_data.h"
#include "conformance/cts_format.pb.h"

namespace nnremote::conformance {
namespace {

namespace fs = std::filesystem;
using hal::ErrorStatus;
using hal::makeError;
using LifeTime = hal::Operand::LifeTime;

// Constants are laid out at this alignment, as AOSP's model builder does.
constexpr size_t kConstantAlignment = 8;

void appendAligned(std::vector<uint8_t>* buffer, const std::string& bytes, hal::DataLocation* at) {
  buffer->resize((buffer->size() + kConstantAlignment - 1) / kConstantAlignment * kConstantAlignment);
  at->offset = static_cast<uint32_t>(buffer->size());
  at->length = static_cast<uint32_t>(bytes.size());
  buffer->insert(buffer->end(), bytes.begin(), bytes.end());
}

// A type written as a name, or as a JSON integer: an extension's encoded code
// ((prefix << 16) | type within the extension), a 32-bit pattern, so prefixes from 0x8000 up
// make codes above INT32_MAX.
template <typename Code>
std::optional<Code> typeFromJson(const google::protobuf::Value& type,
                                 std::optional<Code> (*fromName)(std::string_view name)) {
  if (type.kind_case() == google::protobuf::Value::kStringValue) return fromName(type.string_value());
  if (type.kind_case() != google::protobuf::Value::kNumberValue) return std::nullopt;
  const double number = type.number_value();
  if (number != std::floor(number) || number < 0 || number > UINT32_MAX) return std::nullopt;
  return static_cast<Code>(static_cast<int32_t>(static_cast<uint32_t>(number)));
}

std::string describe(const google::protobuf::Value& type) {
  if (type.kind_case() == google::protobuf::Value::kStringValue) return type.string_value();
  if (type.kind_case() == google::protobuf::Value::kNumberValue) return std::to_string(type.number_value());
  return "(missing)";
}

hal::Result<hal::Model::Subgraph> convertSubgraph(const Subgraph& in, bool isMain,
                                                  std::vector<uint8_t>* operandValues,
                                                  std::vector<uint8_t>* referencePool,
                                                  CtsTestCase* testCase) {
  hal::Model::Subgraph out;
  for (int i = 0; i < in.operands_size(); ++i) {
    const Operand& src = in.operands(i);
    hal::Operand operand;
    const auto type = typeFromJson<hal::OperandType>(src.type(), hal::operandTypeFromName);
    const auto lifetime = hal::lifetimeFromName(src.lifetime());
    if (!type.has_value() || !lifetime.has_value()) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "operands[" << i << "] has unknown type '" << describe(src.type()) << "' or lifetime '"
             << src.lifetime() << "'";
    }
    operand.type = *type;
    operand.lifetime = *lifetime;
    operand.dimensions.assign(src.dimensions().begin(), src.dimensions().end());
    operand.scale = src.scale();
    operand.zeroPoint = src.zero_point();
    if (src.has_channel_quant()) {
      hal::Operand::SymmPerChannelQuantParams params;
      params.scales.assign(src.channel_quant().scales().begin(), src.channel_quant().scales().end());
      params.channelDim = src.channel_quant().channel_dim();
      operand.extraParams = std::move(params);
    }
    if (!src.extension_params().empty()) {
      operand.extraParams =
          hal::Operand::ExtensionParams(src.extension_params().begin(), src.extension_params().end());
    }
    switch (operand.lifetime) {
      case LifeTime::CONSTANT_COPY:
        appendAligned(operandValues, src.data(), &operand.location);
        break;
      case LifeTime::CONSTANT_REFERENCE:
        appendAligned(referencePool, src.data(), &operand.location);
        break;
      case LifeTime::SUBGRAPH: {
        uint32_t index = 0;
        std::memcpy(&index, src.data().data(), std::min<size_t>(4, src.data().size()));
        operand.location.offset = index;
        break;
      }
      case LifeTime::SUBGRAPH_INPUT:
        if (isMain) testCase->inputs.emplace_back(src.data().begin(), src.data().end());
        break;
      default:
        break;
    }
    out.operands.push_back(std::move(operand));
  }
  for (int i = 0; i < in.operations_size(); ++i) {
    const Operation& src = in.operations(i);
    const auto type = typeFromJson<hal::OperationType>(src.type(), hal::operationTypeFromName);
    if (!type.has_value()) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "operations[" << i << "] has unknown type '" << describe(src.type()) << "'";
    }
    out.operations.push_back({*type, {src.inputs().begin(), src.inputs().end()},
                              {src.outputs().begin(), src.outputs().end()}});
  }
  out.inputIndexes.assign(in.input_indexes().begin(), in.input_indexes().end());
  out.outputIndexes.assign(in.output_indexes().begin(), in.output_indexes().end());
  return out;
}

hal::Result<CtsTestCase> convertModel(const Model& src, const std::string& file) {
  CtsTestCase testCase;
  testCase.file = file;
  testCase.name = src.name();
  testCase.expectFailure = src.expect_failure();
  testCase.isRelaxed = src.is_relaxed();
  testCase.multinomialTolerance = src.expected_multinomial_distribution_tolerance();
  hal::Model& model = testCase.model;
  model.relaxComputationFloat32toFloat16 = src.is_relaxed();
  for (const auto& entry : src.extension_name_to_prefix()) {
    if (entry.prefix() > UINT16_MAX) {
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "extension_name_to_prefix: prefix " << entry.prefix() << " of " << entry.name() << " exceeds 65535";
    }
    model.extensionNameToPrefix.push_back({entry.name(), static_cast<uint16_t>(entry.prefix())});
  }
  std::vector<uint8_t> referencePool;

  // Inputs are collected in operand order; reorder them to input_indexes order below.
  NN_ASSIGN_OR_RETURN(model.main, convertSubgraph(src.main(), true, &model.operandValues,
                                                  &referencePool, &testCase));
  std::vector<std::vector<uint8_t>> byOperand = std::move(testCase.inputs);
  testCase.inputs.clear();
  std::vector<uint32_t> inputOperands;
  for (size_t i = 0; i < model.main.operands.size(); ++i) {
    if (model.main.operands[i].lifetime == LifeTime::SUBGRAPH_INPUT) inputOperands.push_back(i);
  }
  // A model the device must refuse (expect_failure) is loaded as it is, however odd, so that
  // it reaches the device; its inputs and goldens only fill the places they can.
  const bool forTheDeviceToRefuse = src.expect_failure();
  for (uint32_t index : model.main.inputIndexes) {
    const auto at = std::find(inputOperands.begin(), inputOperands.end(), index);
    if (at == inputOperands.end()) {
      if (forTheDeviceToRefuse) {
        testCase.inputs.emplace_back();
        continue;
      }
      return makeError(ErrorStatus::INVALID_ARGUMENT)
             << "input_indexes names operand " << index << ", which is not a SUBGRAPH_INPUT";
    }
    testCase.inputs.push_back(byOperand[at - inputOperands.begin()]);
  }
  for (uint32_t index : model.main.outputIndexes) {
    if (index >= static_cast<uint32_t>(src.main().operands_size())) {
      if (forTheDeviceToRefuse) {
        testCase.outputs.emplace_back();
        continue;
      }
      return makeError(ErrorStatus::INVALID_ARGUMENT) << "output index " << index << " is out of range";
    }
    const Operand& golden = src.main().operands(index);
    const hal::Operand& operand = model.main.operands[index];
    testCase.outputs.push_back({operand.type, operand.dimensions, operand.scale, operand.zeroPoint,
                                golden.is_ignored(),
                                std::vector<uint8_t>(golden.data().begin(), golden.data().end())});
  }
  for (int i = 0; i < src.referenced_size(); ++i) {
    NN_ASSIGN_OR_RETURN(auto subgraph, convertSubgraph(src.referenced(i), false,
                                                       &model.operandValues, &referencePool,
                                                       &testCase));
    model.referenced.push_back(std::move(subgraph));
  }
  if (!referencePool.empty()) {
    NN_ASSIGN_OR_RETURN(hal::SharedMemory pool, hal::createHeapMemory(referencePool));
    model.pools.push_back(std::move(pool));
  }
  return testCase;
}

// protobuf's JSON parser says what it expected, then up to 20 characters either side of the
// error (across lines) and a caret under the error: found in the file, that is a line and column.
std::string describeJsonError(const std::string& message, const std::string& contents) {
  const size_t reasonEnd = message.find('\n');
  std::string reason = message.substr(0, reasonEnd);
  while (!reason.empty() && (reason.back() == '.' || reason.back() == ' ')) reason.pop_back();
  const size_t caretLine = message.rfind('\n');
  if (reasonEnd == std::string::npos || caretLine == reasonEnd) return reason;
  const std::string context = message.substr(reasonEnd + 1, caretLine - reasonEnd - 1);
  const size_t caret = message.find('^', caretLine);
  const size_t found = contents.find(context);
  if (caret == std::string::npos || found == std::string::npos) return reason;
  const size_t offset = std::min(found + (caret - caretLine - 1), contents.size());
  const size_t line = 1 + std::count(contents.begin(), contents.begin() + offset, '\n');
  const size_t lineStart = contents.rfind('\n', offset == 0 ? 0 : offset - 1);
  const size_t column = lineStart == std::string::npos || offset == 0 ? offset + 1 : offset - lineStart;
  return "line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + reason;
}

}  // namespace

hal::Result<std::vector<std::string>> findSpecFiles(const std::string& directory) {
  std::error_code error;
  if (fs::is_regular_file(directory, error)) return std::vector<std::string>{directory};
  if (!fs::is_directory(directory, error)) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << directory << (fs::exists(directory, error) ? " is neither a folder nor a file" : " does not exist");
  }
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(directory, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    const fs::path& path = it->path();
    if (it->is_regular_file() && path.extension() == ".json" && path.filename() != "index.json") {
      files.push_back(path.string());
    }
  }
  if (error) {
    return makeError(ErrorStatus::GENERAL_FAILURE) << "cannot list " << directory << ": "
                                                   << error.message();
  }
  std::sort(files.begin(), files.end());
  return files;
}

hal::Result<std::vector<CtsTestCase>> loadSpecFile(const std::string& path,
                                                   const std::string& displayName) {
  NN_ASSIGN_OR_RETURN(const std::string contents, hal::readFileContents(path));
  SpecFile spec;
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;
  const auto status = google::protobuf::util::JsonStringToMessage(contents, &spec, options);
  if (!status.ok()) {
    return makeError(ErrorStatus::INVALID_ARGUMENT)
           << path << " is not a conformance JSON file (../shared/conformance/README.md): "
           << describeJsonError(std::string(status.message()), contents);
  }
  std::vector<CtsTestCase> cases;
  for (const Model& model : spec.models()) {
    auto converted = convertModel(model, displayName);
    if (!converted.ok()) {
      return hal::withContext(converted.error(), displayName + ":" + model.name());
    }
    cases.push_back(std::move(converted).value());
  }
  return cases;
}

std::string defaultConformanceDirectory() {
  if (const char* env = getenv("NNREMOTE_CONFORMANCE_DIR"); env != nullptr && *env) return env;
  return conformance::sharedDataDirectory("conformance");
}

}  // namespace nnremote::conformance
