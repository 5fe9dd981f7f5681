#include "sim/sparse/sparse_error.h"

#include <algorithm>

#include "sim/core/echo.h"

namespace treesim::sparse {

std::string SparseError::render() const {
  std::string out;
  if (column_ > 0) {
    // Escaped like every echo, so the caret's column counts the escapes before it.
    const std::size_t start = std::min(column_ - 1, source_.size());
    const std::size_t caret = core::echo(source_.substr(0, start), 0).size();
    const std::size_t width = core::echo(source_.substr(start, std::max<std::size_t>(length_, 1)), 0).size();
    out += core::echo(source_, 0) + "\n" + std::string(caret, ' ') +
           std::string(std::max<std::size_t>(width, 1), '^') + "\n";
  }
  return out + what() + "\n";
}

}  // namespace treesim::sparse
