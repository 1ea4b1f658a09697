// Errors as values: every HAL call returns a `Status` or a `Result<T>` that carries the HAL
// `ErrorStatus` and a message naming what went wrong. Nothing throws across the seam.
#ifndef NNREMOTE_HAL_RESULT_H_
#define NNREMOTE_HAL_RESULT_H_

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace nnremote::hal {

// NN HAL 1.3 ErrorStatus, plus DEAD_OBJECT for a peer that is gone. Values match the HAL.
enum class ErrorStatus : int32_t {
  NONE = 0,
  DEVICE_UNAVAILABLE = 1,
  GENERAL_FAILURE = 2,
  OUTPUT_INSUFFICIENT_SIZE = 3,
  INVALID_ARGUMENT = 4,
  MISSED_DEADLINE_TRANSIENT = 5,
  MISSED_DEADLINE_PERSISTENT = 6,
  RESOURCE_EXHAUSTED_TRANSIENT = 7,
  RESOURCE_EXHAUSTED_PERSISTENT = 8,
  DEAD_OBJECT = 10000,
};

const char* toString(ErrorStatus status);

struct OutputShape {
  std::vector<uint32_t> dimensions;
  bool isSufficient = false;
  bool operator==(const OutputShape& other) const {
    return dimensions == other.dimensions && isSufficient == other.isSufficient;
  }
};

struct Error {
  ErrorStatus code = ErrorStatus::GENERAL_FAILURE;
  std::string message;
  // Only for OUTPUT_INSUFFICIENT_SIZE: the shape every output needs.
  std::vector<OutputShape> outputShapes;
};

// Success, or an Error.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return !error_.has_value(); }
  const Error& error() const { return *error_; }
  Error& error() { return *error_; }
  ErrorStatus code() const { return ok() ? ErrorStatus::NONE : error_->code; }

 private:
  std::optional<Error> error_;
};

// A value of T, or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}       // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}   // NOLINT
  Result(Status status) : state_(std::move(status.error())) {}  // NOLINT: must not be ok

  bool ok() const { return state_.index() == 0; }
  const T& value() const& { return std::get<0>(state_); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const Error& error() const { return std::get<1>(state_); }
  Error& error() { return std::get<1>(state_); }
  Status status() const { return ok() ? Status() : Status(error()); }

  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }

 private:
  std::variant<T, Error> state_;
};

// Builds an Error with stream syntax: `return makeError(ErrorStatus::INVALID_ARGUMENT) << ...;`
class ErrorBuilder {
 public:
  explicit ErrorBuilder(ErrorStatus code) : code_(code) {}
  template <typename V>
  ErrorBuilder& operator<<(const V& value) {
    stream_ << value;
    return *this;
  }
  operator Error() const { return Error{code_, stream_.str(), {}}; }  // NOLINT
  operator Status() const { return Status(Error(*this)); }            // NOLINT
  template <typename T>
  operator Result<T>() const {  // NOLINT
    return Result<T>(Error(*this));
  }

 private:
  ErrorStatus code_;
  std::ostringstream stream_;
};

inline ErrorBuilder makeError(ErrorStatus code) { return ErrorBuilder(code); }
inline ErrorBuilder invalidArgument() { return ErrorBuilder(ErrorStatus::INVALID_ARGUMENT); }

// Adds context in front of an error's message, keeping its code.
inline Error withContext(Error error, const std::string& context) {
  error.message = context + ": " + error.message;
  return error;
}

}  // namespace nnremote::hal

#define NN_CONCAT_INNER_(a, b) a##b
#define NN_CONCAT_(a, b) NN_CONCAT_INNER_(a, b)

// Returns the error of a Status/Result expression from the enclosing function.
#define NN_RETURN_IF_ERROR(expr)                       \
  do {                                                 \
    auto nn_status_ = (expr);                          \
    if (!nn_status_.ok()) return nn_status_.error();   \
  } while (0)

// `NN_ASSIGN_OR_RETURN(auto x, computeX());`
#define NN_ASSIGN_OR_RETURN(lhs, expr) \
  NN_ASSIGN_OR_RETURN_IMPL_(NN_CONCAT_(nn_result_, __LINE__), lhs, expr)
#define NN_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return std::move(tmp.error());   \
  lhs = std::move(tmp).value()

#endif  // NNREMOTE_HAL_RESULT_H_
