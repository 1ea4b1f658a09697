// Escaping for the XML and HTML that diagnostics write (graph dumps, reports, JUnit).
#ifndef NNREMOTE_HAL_TEXT_ESCAPE_H_
#define NNREMOTE_HAL_TEXT_ESCAPE_H_

#include <string>

namespace nnremote::hal {

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

}  // namespace nnremote::hal

#endif  // NNREMOTE_HAL_TEXT_ESCAPE_H_
