// Escaping for the XML, HTML and JSON the tools write.
#ifndef NNREMOTE_TOOLS_TEXT_ESCAPE_H_
#define NNREMOTE_TOOLS_TEXT_ESCAPE_H_

#include <string>

namespace nnremote::tools {

// For XML/HTML text and attribute values.
inline std::string xmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace nnremote::tools

#endif  // NNREMOTE_TOOLS_TEXT_ESCAPE_H_
