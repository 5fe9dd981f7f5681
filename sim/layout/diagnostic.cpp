#include "sim/layout/diagnostic.h"

namespace treesim::layout {

std::string Diagnostic::headline() const { return code + " " + message; }

std::string Diagnostic::render() const {
  std::string out;
  if (!source.empty() || column > 0) {  // an empty layout still gets its caret line
    out += source + "\n";
    if (column > 0) {
      out += std::string(column - 1, ' ') + std::string(length == 0 ? 1 : length, '^') + "\n";
    }
  }
  out += headline() + "\n";
  // The hint is indented under the message text, past the code.
  if (!hint.empty()) out += std::string(code.size() + 1, ' ') + hint + "\n";
  return out;
}

}  // namespace treesim::layout
