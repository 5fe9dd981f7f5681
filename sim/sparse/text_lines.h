// Lines of a text file with their numbers, and whole-token number parsing, for the matrix readers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace treesim::sparse {

class TextLines {
 public:
  explicit TextLines(std::string_view text) : text_(text) {}
  // The next line (without its end), or nullopt at the end; line() is its 1-based number.
  std::optional<std::string_view> next();
  std::size_t line() const { return line_; }

 private:
  std::string_view text_;
  std::size_t at_ = 0, line_ = 0;
};

std::vector<std::string_view> split_words(std::string_view line);
// The same into `out` (cleared first): a reader reuses one vector for every line.
void split_words(std::string_view line, std::vector<std::string_view>& out);
std::optional<std::uint64_t> parse_uint(std::string_view word);
std::optional<std::int64_t> parse_int(std::string_view word);
// A real as C or Fortran writes it (1.5, -2e3, 0.1D+01); finite only.
std::optional<double> parse_real(std::string_view word);

}  // namespace treesim::sparse
