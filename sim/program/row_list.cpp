#include "sim/program/row_list.h"

#include <fmt/format.h>

#include <charconv>

#include "sim/core/echo.h"

namespace treesim::program {
namespace {

std::optional<std::uint64_t> number(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty() || s.size() > 19) return std::nullopt;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::vector<std::uint64_t>> parse_row_list(std::string_view text, std::string& error) {
  std::vector<std::uint64_t> rows;
  const auto too_long = [&] {
    error = fmt::format("more than {} rows", kMaxRowListLength);
    return std::nullopt;
  };
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    if (!item.empty() && item[0] == '_') {
      std::uint64_t k = 1;
      if (item.size() > 1) {
        const auto n = number(item.substr(1));
        if (!n || *n == 0) {
          error = fmt::format("expected '_' or '_K' (K padding rows, K >= 1), got '{}'", core::echo(item));
          return std::nullopt;
        }
        k = *n;
      }
      if (k > kMaxRowListLength - rows.size()) return too_long();
      rows.insert(rows.end(), k, kPadRow);
    } else {
      const std::size_t dash = item.find('-');
      const auto a = number(item.substr(0, dash));
      const auto b = dash == std::string_view::npos ? a : number(item.substr(dash + 1));
      if (!a || !b || *b < *a || *b == kPadRow) {
        error = fmt::format("expected a row N, a run N-M (N <= M), '_' or '_K', got '{}'", core::echo(item));
        return std::nullopt;
      }
      if (*b - *a >= kMaxRowListLength - rows.size()) return too_long();
      for (std::uint64_t r = *a; r <= *b; ++r) rows.push_back(r);
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return rows;
}

std::string print_row_list(const std::vector<std::uint64_t>& rows) {
  std::string out;
  for (std::size_t i = 0; i < rows.size();) {
    std::size_t j = i + 1;
    if (!out.empty()) out += ',';
    if (rows[i] == kPadRow) {
      while (j < rows.size() && rows[j] == kPadRow) ++j;
      out += j - i == 1 ? "_" : fmt::format("_{}", j - i);
    } else {
      while (j < rows.size() && rows[j] != kPadRow && rows[j] == rows[j - 1] + 1) ++j;
      out += j - i == 1 ? fmt::format("{}", rows[i]) : fmt::format("{}-{}", rows[i], rows[j - 1]);
    }
    i = j;
  }
  return out;
}

}  // namespace treesim::program
