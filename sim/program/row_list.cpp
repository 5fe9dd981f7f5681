#include "sim/program/row_list.h"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

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

RowList::RowList(const std::vector<std::uint64_t>& rows) {
  for (std::uint64_t r : rows) add(r);
}

void RowList::too_long() {
  throw std::length_error(fmt::format("a row list of more than {} rows", kRowListCapacity));
}

std::uint64_t RowList::at(std::uint64_t i) const {
  std::uint64_t row = kPadRow;
  for_each(i, 1, [&](std::uint64_t, const RowRun& r) { row = r.first; });
  return row;
}

std::vector<std::uint64_t> RowList::expanded() const {
  std::vector<std::uint64_t> out;
  out.reserve(size_);
  for_each(0, size_, [&](std::uint64_t, const RowRun& r) {
    for (std::uint64_t k = 0; k < r.count; ++k) out.push_back(r.padding() ? r.first : r.first + k);
  });
  return out;
}

std::optional<RowList> parse_row_list(std::string_view text, std::string& error) {
  RowList rows;
  const auto too_long = [&] {
    error = fmt::format("more than {} rows", kMaxRowListLength);
    return std::nullopt;
  };
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    if (!item.empty() && (item[0] == '_' || item[0] == '~')) {
      const bool gap = item[0] == '~';
      std::uint64_t k = 1;
      if (item.size() > 1) {
        const auto n = number(item.substr(1));
        if (!n || *n == 0) {
          error =
              gap ? fmt::format("expected '~' or '~K' (K gaps, K >= 1), got '{}'", core::echo(item))
                  : fmt::format("expected '_' or '_K' (K padding rows, K >= 1), got '{}'", core::echo(item));
          return std::nullopt;
        }
        k = *n;
      }
      if (k > kMaxRowListLength - rows.size()) return too_long();
      rows.add_run(gap ? kGapRow : kPadRow, k);
    } else {
      const std::size_t dash = item.find('-');
      const auto a = number(item.substr(0, dash));
      const auto b = dash == std::string_view::npos ? a : number(item.substr(dash + 1));
      if (!a || !b || *b < *a || *b >= kGapRow) {
        error = fmt::format("expected a row N, a run N-M (N <= M), '_', '_K', '~' or '~K', got '{}'",
                            core::echo(item));
        return std::nullopt;
      }
      if (*b - *a >= kMaxRowListLength - rows.size()) return too_long();
      rows.add_run(*a, *b - *a + 1);
    }
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return rows;
}

std::string print_row_list(const RowList& rows) {
  std::string out;
  for (std::size_t k = 0; k < rows.run_count(); ++k) {
    const RowRun r = rows.run(k);
    if (!out.empty()) out += ',';
    if (r.padding())
      out += r.count == 1 ? (r.gap() ? "~" : "_") : fmt::format("{}{}", r.gap() ? '~' : '_', r.count);
    else
      out += r.count == 1 ? fmt::format("{}", r.first) : fmt::format("{}-{}", r.first, r.first + r.count - 1);
  }
  return out;
}

}  // namespace treesim::program
