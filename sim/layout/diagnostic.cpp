#include "sim/layout/diagnostic.h"

#include <algorithm>

#include "sim/core/echo.h"

namespace treesim::layout {

std::string Diagnostic::headline() const { return code + " " + message; }

namespace {

// Layout lines longer than this are shown as a window around the caret.
constexpr std::size_t kWindow = 120;

}  // namespace

std::string Diagnostic::render() const {
  std::string out;
  if (!source.empty() || column > 0) {  // an empty layout still gets its caret line
    // The layout is echoed escaped (a newline in it must not break the caret line) and, when long,
    // as a window around the caret; the caret's column is moved to match.
    const std::size_t start = column > 0 ? std::min(column - 1, source.size()) : 0;
    std::string shown = core::echo(source, 0);
    std::size_t caret = core::echo(source.substr(0, start), 0).size();
    std::size_t width = core::echo(source.substr(start, length == 0 ? 1 : length), 0).size();
    if (shown.size() > kWindow) {
      const std::size_t from = caret > kWindow / 3 ? caret - kWindow / 3 : 0;
      const std::string head = from > 0 ? "..." : "";
      const std::string tail = from + kWindow < shown.size() ? "..." : "";
      shown = head + shown.substr(from, kWindow) + tail;
      caret = caret - from + head.size();
      width = std::min(width, kWindow);
    }
    out += shown + "\n";
    if (column > 0) out += std::string(caret, ' ') + std::string(std::max<std::size_t>(width, 1), '^') + "\n";
  }
  out += headline() + "\n";
  // The hint is indented under the message text, past the code.
  if (!hint.empty()) out += std::string(code.size() + 1, ' ') + hint + "\n";
  return out;
}

}  // namespace treesim::layout
