// Flag types that check their values as absl parses them, so a wrong value is a usage error
// that names the flag: "Illegal value 'urgent' specified for flag 'priority'; must be low,
// medium or high".
#ifndef NNREMOTE_FLAGS_FLAG_TYPES_H_
#define NNREMOTE_FLAGS_FLAG_TYPES_H_

#include <cstdint>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "hal/types.h"
#include "wire/address.h"

namespace nnremote::flags {

// A whole number from kMin to kMax.
template <int64_t kMin, int64_t kMax>
struct WholeNumber {
  int64_t value = kMin;
};

template <int64_t kMin, int64_t kMax>
bool AbslParseFlag(absl::string_view text, WholeNumber<kMin, kMax>* number, std::string* error) {
  int64_t value = 0;
  if (!absl::SimpleAtoi(text, &value) || value < kMin || value > kMax) {
    *error = absl::StrCat("must be a whole number from ", kMin, " to ", kMax);
    return false;
  }
  number->value = value;
  return true;
}

template <int64_t kMin, int64_t kMax>
std::string AbslUnparseFlag(WholeNumber<kMin, kMax> number) {
  return absl::StrCat(number.value);
}

// VLOG tags, as hal::setVlogTags takes them: "compilation,wire", "all", or "" for none.
struct VlogTags {
  std::string list;
};
bool AbslParseFlag(absl::string_view text, VlogTags* tags, std::string* error);
std::string AbslUnparseFlag(const VlogTags& tags);

// An address (wire/address.h) to listen on or to give clients, or "" where the flag leaves it
// unset. gRPC and the metrics server would read a wrong one loosely or fail obscurely.
enum class AddressForms { kAny, kTcpOnly };
template <wire::AddressUse kUse, AddressForms kForms>
struct AddressFlag {
  std::string text;
};

template <wire::AddressUse kUse, AddressForms kForms>
bool AbslParseFlag(absl::string_view text, AddressFlag<kUse, kForms>* address, std::string* error) {
  const std::string value(text);
  if (!value.empty()) {
    std::string problem = wire::whyNotAnAddress(value, kUse);
    if (problem.empty() && kForms == AddressForms::kTcpOnly && wire::isUnixAddress(value)) problem = "is not HOST:PORT";
    if (!problem.empty()) {
      *error = "it " + problem;
      return false;
    }
  }
  address->text = value;
  return true;
}

template <wire::AddressUse kUse, AddressForms kForms>
std::string AbslUnparseFlag(const AddressFlag<kUse, kForms>& address) {
  return address.text;
}

}  // namespace nnremote::flags

namespace nnremote::hal {

// --priority=low|medium|high (found by absl through argument-dependent lookup).
bool AbslParseFlag(absl::string_view text, Priority* priority, std::string* error);
std::string AbslUnparseFlag(Priority priority);

}  // namespace nnremote::hal

#endif  // NNREMOTE_FLAGS_FLAG_TYPES_H_
