#include "sim/core/echo.h"

#include <cstdio>

namespace treesim::core {

std::string echo(std::string_view text, std::size_t limit) {
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    std::string piece;
    switch (c) {
      case '\n':
        piece = "\\n";
        break;
      case '\r':
        piece = "\\r";
        break;
      case '\t':
        piece = "\\t";
        break;
      case '\\':
        piece = "\\\\";
        break;
      default:
        if (c >= 0x20 && c < 0x7f) {
          piece = std::string(1, ch);
        } else {
          char buf[5];
          std::snprintf(buf, sizeof buf, "\\x%02X", c);
          piece = buf;
        }
    }
    if (limit > 0 && out.size() + piece.size() > limit) return out + "...";
    out += piece;
  }
  return out;
}

}  // namespace treesim::core
