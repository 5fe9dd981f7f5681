// A message about a layout string: an error (E...) or a warning (W...), with the layout echoed and a
// caret under the offending token. Errors are values (validation returns them); LayoutError carries
// one through code paths that cannot return a value (queries, the loader).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace treesim::layout {

struct Diagnostic {
  std::string code;        // "E040", "W01", ... (catalogue: the design notes, tensor-layout §5)
  std::string message;     // one line: rule, offending value, context
  std::string hint;        // optional second line (e.g. how to write a pad prefix)
  std::string source;      // the layout text the columns refer to
  std::size_t column = 0;  // 1-based column of the first offending character; 0 = no caret
  std::size_t length = 0;  // characters underlined

  bool is_warning() const { return !code.empty() && code[0] == 'W'; }
  // "E040 axis 0: ..." (no echo, no caret).
  std::string headline() const;
  // The layout, a caret line under the offending token, the headline and the hint:
  //   ((4_PE, 4:8), (8:1))
  //    ^^^^^^^^^^^
  //   E040 axis 0: sub-axis sizes multiply to 16 (4×4) but tensor dim 0 is 12 (shape (12,8))
  std::string render() const;
};

class LayoutError : public std::runtime_error {
 public:
  explicit LayoutError(Diagnostic d) : std::runtime_error(d.render()), diagnostic_(std::move(d)) {}
  const Diagnostic& diagnostic() const { return diagnostic_; }

 private:
  Diagnostic diagnostic_;
};

}  // namespace treesim::layout
