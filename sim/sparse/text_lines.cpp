#include "sim/sparse/text_lines.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace treesim::sparse {

std::optional<std::string_view> TextLines::next() {
  if (at_ >= text_.size()) return std::nullopt;
  std::size_t end = text_.find('\n', at_);
  if (end == std::string_view::npos) end = text_.size();
  std::string_view l = text_.substr(at_, end - at_);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  at_ = end + 1;
  ++line_;
  return l;
}

namespace {

// C's isspace in the "C" locale, without the locale lookup per character.
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

}  // namespace

void split_words(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) out.push_back(line.substr(start, i - start));
  }
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> out;
  split_words(line, out);
  return out;
}

std::optional<std::uint64_t> parse_uint(std::string_view w) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (w.empty() || ec != std::errc() || p != w.data() + w.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_int(std::string_view w) {
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
  if (w.empty() || ec != std::errc() || p != w.data() + w.size()) return std::nullopt;
  return v;
}

std::optional<double> parse_real(std::string_view w) {
  if (w.empty() || w.size() > 64) return std::nullopt;
  // Most files write C's form: from_chars reads it in place (correctly rounded, as strtod). Its
  // general format takes no hex; the inf and nan it reads are not finite. Fortran's D exponent and
  // a leading '+' take the slow path.
  if (w[0] != '+' && w.find_first_of("Dd") == std::string_view::npos) {
    double v = 0;
    const auto [p, ec] = std::from_chars(w.data(), w.data() + w.size(), v);
    if (ec != std::errc::result_out_of_range) {  // (strtod below says what an underflow reads as)
      if (ec != std::errc() || p != w.data() + w.size() || !std::isfinite(v)) return std::nullopt;
      return v;
    }
  }
  std::string s(w);
  for (char& c : s)
    if (c == 'D' || c == 'd') c = 'e';
  // strtod also takes hex, inf and nan; a matrix file holds decimal numbers only.
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '+' && c != '-' && c != '.' && c != 'e' &&
        c != 'E')
      return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

}  // namespace treesim::sparse
