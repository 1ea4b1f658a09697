// The operation-signature table (hal/operation_signatures.h) against the AOSP conformance models:
// every operation of every valid model passes its signature, and every type has one.
#include "hal/operation_signatures.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "hal/operand_types.h"
#include "conformance/cts_loader.h"

namespace nnremote::hal {
namespace {

TEST(OperationSignaturesTest, EveryOperationTypeHasExactlyOneSignature) {
  std::string missing;
  for (OperationType type : operationTypesWithoutSignature()) missing += toString(type) + " ";
  EXPECT_TRUE(missing.empty()) << "without a signature, or listed twice: " << missing;
}

// NNREMOTE_SIGNATURE_OPS=CONV_2D,ADD checks only those operations (for work on one family).
std::set<OperationType> operationsToCheck() {
  std::set<OperationType> chosen;
  const char* list = std::getenv("NNREMOTE_SIGNATURE_OPS");
  if (list == nullptr) return chosen;
  std::stringstream names(list);
  std::string name;
  while (std::getline(names, name, ',')) {
    if (auto type = operationTypeFromName(name)) chosen.insert(*type);
  }
  return chosen;
}

TEST(OperationSignaturesTest, EveryOperationOfEveryValidConformanceModelPasses) {
  const std::string directory = conformance::defaultConformanceDirectory();
  if (directory.empty()) GTEST_SKIP() << "../shared/conformance is absent; set NNREMOTE_CONFORMANCE_DIR to run it";
  const auto files = conformance::findSpecFiles(directory);
  ASSERT_TRUE(files.ok()) << files.error().message;
  const std::set<OperationType> chosen = operationsToCheck();
  std::map<std::string, int> failuresByOperation;
  std::vector<std::string> samples;
  size_t models = 0, operations = 0;
  for (const std::string& path : *files) {
    auto cases = conformance::loadSpecFile(path, path.substr(directory.size() + 1));
    ASSERT_TRUE(cases.ok()) << cases.error().message;
    for (const conformance::CtsTestCase& test : *cases) {
      if (test.expectFailure) continue;
      ++models;
      auto check = [&](const Model::Subgraph& subgraph, const std::string& name) {
        for (size_t i = 0; i < subgraph.operations.size(); ++i) {
          const Operation& operation = subgraph.operations[i];
          if (!chosen.empty() && chosen.count(operation.type) == 0) continue;
          ++operations;
          auto version = validateOperationSignature(test.model, subgraph, operation,
                                                    name + ".operations[" + std::to_string(i) + "]");
          if (version.ok()) continue;
          if (failuresByOperation[toString(operation.type)]++ < 3) {
            samples.push_back(test.fullName() + ": " + version.error().message);
          }
        }
      };
      check(test.model.main, "main");
      for (size_t r = 0; r < test.model.referenced.size(); ++r) {
        check(test.model.referenced[r], "referenced[" + std::to_string(r) + "]");
      }
    }
  }
  std::string report;
  for (const auto& [operation, count] : failuresByOperation) report += operation + ": " + std::to_string(count) + "\n";
  for (const std::string& sample : samples) report += "  " + sample + "\n";
  EXPECT_TRUE(failuresByOperation.empty()) << "valid operations refused, by type:\n" << report;
  EXPECT_GT(operations, 0u);
  std::cout << models << " valid models, " << operations << " operations checked\n";
}

}  // namespace
}  // namespace nnremote::hal
