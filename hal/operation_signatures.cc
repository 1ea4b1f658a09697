#include "hal/operation_signatures.h"

#include <array>

#include "hal/operand_types.h"
#include "hal/operations/families.h"

namespace nnremote::hal {
namespace {

using Table = std::array<OperationValidator, kLastOperationType + 1>;

// Every family's operations, indexed by type code. A type listed twice keeps its first entry;
// operationTypesWithoutSignature() and the tests catch both gaps and repeats.
struct SignatureTable {
  Table validators{};
  std::vector<OperationType> repeated;
};

const SignatureTable& table() {
  static const SignatureTable* const kTable = [] {
    auto* built = new SignatureTable();
    for (auto family : {signatures::elementwiseSignatures, signatures::convolutionSignatures,
                        signatures::shapeSignatures, signatures::recurrentSignatures,
                        signatures::detectionSignatures}) {
      for (const OperationSignature& signature : family()) {
        const int32_t code = static_cast<int32_t>(signature.type);
        if (code < 0 || code > kLastOperationType) continue;
        if (built->validators[code] != nullptr) {
          built->repeated.push_back(signature.type);
          continue;
        }
        built->validators[code] = signature.validate;
      }
    }
    return built;
  }();
  return *kTable;
}

}  // namespace

const uint8_t* OperationOperands::constantData(size_t i, size_t* length) const {
  const Operand& operand = input(i);
  const DataLocation& location = operand.location;
  *length = location.length;
  switch (operand.lifetime) {
    case Operand::LifeTime::CONSTANT_COPY:
      if (uint64_t{location.offset} + location.length > model_.operandValues.size()) return nullptr;
      return model_.operandValues.data() + location.offset;
    case Operand::LifeTime::CONSTANT_REFERENCE: {
      if (location.poolIndex >= model_.pools.size() || model_.pools[location.poolIndex] == nullptr) return nullptr;
      const SharedMemory& pool = model_.pools[location.poolIndex];
      if (uint64_t{location.offset} + location.length > pool->size()) return nullptr;
      return static_cast<const uint8_t*>(pool->data()) + location.offset;
    }
    case Operand::LifeTime::POINTER:
      return static_cast<const uint8_t*>(location.pointer);
    default:
      return nullptr;
  }
}

Result<Version> validateOperationSignature(const Model& model, const Model::Subgraph& subgraph,
                                           const Operation& operation, const std::string& where) {
  const int32_t code = static_cast<int32_t>(operation.type);
  // Extension operations are defined by their extension, which only a device knows; OEM_OPERATION
  // is opaque by definition (deprecated since feature level 4).
  if (isExtension(code) || operation.type == OperationType::OEM_OPERATION) return Version::FEATURE_LEVEL_1;
  if (code < 0 || code > kLastOperationType || table().validators[code] == nullptr) {
    return invalidArgument() << where << ".type = " << code << " is not a valid operation type";
  }
  Result<Version> version = table().validators[code](OperationOperands(model, subgraph, operation));
  if (!version.ok()) return withContext(std::move(version.error()), where + " " + toString(operation.type));
  return version;
}

std::vector<OperationType> operationTypesWithoutSignature() {
  std::vector<OperationType> missing = table().repeated;
  for (int32_t code = 0; code <= kLastOperationType; ++code) {
    if (table().validators[code] == nullptr) missing.push_back(static_cast<OperationType>(code));
  }
  return missing;
}

}  // namespace nnremote::hal
