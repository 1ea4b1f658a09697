// Reading a configuration written as a protobuf textproto (an NPU's, the server's), with the
// parser's first complaint in the error rather than in a separate libprotobuf log line.
#ifndef NNREMOTE_HAL_TEXTPROTO_H_
#define NNREMOTE_HAL_TEXTPROTO_H_

#include <string>

#include "hal/result.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace nnremote::hal {

// Parses `text` into `message`; on a syntax error, an unknown field or a bad value,
// INVALID_ARGUMENT "ORIGIN: line L, column C: what the parser said".
Status parseTextProto(const std::string& text, const std::string& origin, google::protobuf::Message* message);

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_TEXTPROTO_H_
