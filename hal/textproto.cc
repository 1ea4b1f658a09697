#include "hal/textproto.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/message.h>
#include <google/protobuf/text_format.h>

namespace nnremote::hal {
namespace {

// Keeps the first error; with a collector set, the parser no longer logs its errors itself.
class FirstError final : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, int column, const std::string& message) override {
    if (first_.empty()) {
      first_ = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
    }
  }
  void AddWarning(int, int, const std::string&) override {}
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

}  // namespace

Status parseTextProto(const std::string& text, const std::string& origin, google::protobuf::Message* message) {
  google::protobuf::TextFormat::Parser parser;
  FirstError errors;
  parser.RecordErrorsTo(&errors);
  if (parser.ParseFromString(text, message)) return {};
  return invalidArgument() << origin << ": "
                           << (errors.first().empty() ? "not a valid " + message->GetTypeName() : errors.first());
}

}  // namespace nnremote::hal
