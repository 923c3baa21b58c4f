#include "syncfab/sm/errors.hpp"

#include <cstdio>

namespace syncfab::sm {

std::string printable(std::string_view text, std::size_t max) {
  std::string out;
  const std::size_t n = text.size() > max ? max : text.size();
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > max) {
    out += "... (" + std::to_string(text.size()) + " bytes)";
  }
  return out;
}

}  // namespace syncfab::sm
