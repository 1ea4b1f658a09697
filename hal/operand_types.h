// Facts about operand types, and names for every HAL enum.
#ifndef NNREMOTE_HAL_OPERAND_TYPES_H_
#define NNREMOTE_HAL_OPERAND_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hal/types.h"

namespace nnremote::hal {

// An extension type or operation carries a non-zero prefix in its high bits.
inline bool isExtension(int32_t code) { return (code >> kExtensionTypeBits) != 0; }
inline bool isExtension(OperandType type) { return isExtension(static_cast<int32_t>(type)); }
inline bool isExtension(OperationType type) { return isExtension(static_cast<int32_t>(type)); }

// True for the HAL 1.3 operand types FLOAT32..SUBGRAPH.
bool isKnownOperandType(OperandType type);
bool isTensor(OperandType type);
// Bytes per element of a non-extension type (SUBGRAPH counts as 4, like UINT32).
uint32_t elementSize(OperandType type);

// Bytes of a non-extension operand with these dimensions; std::nullopt if the product
// overflows 32 bits (the HAL's limit for one operand). Unknown (0) dimensions give 0.
std::optional<uint32_t> sizeOfData(OperandType type, const std::vector<uint32_t>& dimensions);
inline std::optional<uint32_t> sizeOfData(const Operand& operand) {
  return sizeOfData(operand.type, operand.dimensions);
}

// True if a tensor's rank or any dimension is unknown.
bool hasUnspecifiedDimensions(OperandType type, const std::vector<uint32_t>& dimensions);
inline bool hasUnspecifiedDimensions(const Operand& operand) {
  return hasUnspecifiedDimensions(operand.type, operand.dimensions);
}

uint64_t elementCount(const std::vector<uint32_t>& dimensions);

std::string toString(OperandType type);
std::string toString(OperationType type);
std::string toString(Operand::LifeTime lifetime);
std::string toString(DeviceType type);
// "low", "medium" or "high", as flags and metrics spell priorities.
const char* priorityName(Priority priority);
std::string toString(Version version);
std::string toString(const std::vector<uint32_t>& dimensions);

std::optional<OperandType> operandTypeFromName(std::string_view name);
std::optional<OperationType> operationTypeFromName(std::string_view name);
std::optional<Operand::LifeTime> lifetimeFromName(std::string_view name);

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_OPERAND_TYPES_H_
