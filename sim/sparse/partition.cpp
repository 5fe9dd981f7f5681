#include "sim/sparse/partition.h"

#include <algorithm>
#include <cmath>

namespace treesim::sparse {

bool parse_partition(const std::string& text, Partition& out) {
  if (text == "rows")
    out = Partition::kRows;
  else if (text == "nnz")
    out = Partition::kNnz;
  else if (text == "2d")
    out = Partition::k2d;
  else
    return false;
  return true;
}

std::string partition_name(Partition p) {
  switch (p) {
    case Partition::kRows:
      return "rows";
    case Partition::kNnz:
      return "nnz";
    case Partition::k2d:
      return "2d";
  }
  return "";
}

std::vector<std::uint64_t> even_bounds(std::uint64_t count, std::uint64_t parts, std::uint64_t group) {
  parts = std::max<std::uint64_t>(parts, 1);
  group = std::max<std::uint64_t>(group, 1);
  const std::uint64_t groups = (count + group - 1) / group, q = groups / parts, r = groups % parts;
  std::vector<std::uint64_t> b(parts + 1);
  for (std::uint64_t k = 0; k <= parts; ++k) b[k] = std::min(count, (k * q + std::min(k, r)) * group);
  return b;
}

std::vector<std::uint64_t> row_bounds(Partition kind, const std::vector<std::uint64_t>& row_entries,
                                      std::uint64_t parts, std::uint64_t group) {
  parts = std::max<std::uint64_t>(parts, 1);
  if (kind != Partition::kNnz) return even_bounds(row_entries.size(), parts, group);
  if (group > 1) {
    // The same rules on block rows: a group weighs its rows' entries plus one per row, which the
    // rule below adds back as the group's one.
    std::vector<std::uint64_t> grouped((row_entries.size() + group - 1) / group, 0);
    for (std::size_t r = 0; r < row_entries.size(); ++r) grouped[r / group] += row_entries[r] + 1;
    for (std::uint64_t& g : grouped) g -= 1;
    std::vector<std::uint64_t> b = row_bounds(kind, grouped, parts, 1);
    for (std::uint64_t& x : b) x = std::min<std::uint64_t>(x * group, row_entries.size());
    return b;
  }
  const std::uint64_t rows = row_entries.size();
  // One row per part is the best a row split can do when rows are no more than parts.
  if (rows <= parts) return even_bounds(rows, parts);
  // Fills the parts in order, each up to `cap` (a row that does not fit starts the next part), and
  // stops a part early when the rows left are as many as the parts left; empty when `cap` needs
  // more than `parts` parts.
  const auto fill = [&](std::uint64_t cap) {
    std::vector<std::uint64_t> b(1, 0);
    std::uint64_t row = 0;
    for (std::uint64_t k = 1; k < parts; ++k) {
      std::uint64_t load = 0;
      while (row < rows && load + row_entries[row] + 1 <= cap && rows - row > parts - k)
        load += row_entries[row++] + 1;
      b.push_back(row);
    }
    std::uint64_t last = 0;
    for (std::uint64_t r = row; r < rows; ++r) last += row_entries[r] + 1;
    if (last > cap) return std::vector<std::uint64_t>{};
    b.push_back(rows);
    return b;
  };
  // The least cap that fits: at least the heaviest row and the mean, at most their sum (filling to
  // mean + heaviest never needs more than `parts` parts).
  std::uint64_t total = 0, heaviest = 0;
  for (std::uint64_t e : row_entries) total += e + 1, heaviest = std::max(heaviest, e + 1);
  std::uint64_t lo = std::max(heaviest, (total + parts - 1) / parts), hi = lo + heaviest;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (fill(mid).empty())
      lo = mid + 1;
    else
      hi = mid;
  }
  return fill(lo);
}

std::uint64_t squarest_grid_cols(std::uint64_t pes) {
  pes = std::max<std::uint64_t>(pes, 1);
  std::uint64_t r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(pes)));
  while (r * r > pes) --r;
  while (r > 1 && pes % r != 0) --r;
  return std::max<std::uint64_t>(r, 1);
}

PartitionStats partition_stats(std::vector<std::uint64_t> per_pe) {
  PartitionStats s;
  s.per_pe = std::move(per_pe);
  if (s.per_pe.empty()) return s;
  for (std::uint64_t n : s.per_pe) s.total += n;
  s.min = *std::min_element(s.per_pe.begin(), s.per_pe.end());
  s.max = *std::max_element(s.per_pe.begin(), s.per_pe.end());
  s.mean = static_cast<double>(s.total) / static_cast<double>(s.per_pe.size());
  s.imbalance = s.total == 0 ? 0.0 : static_cast<double>(s.max) / s.mean;
  s.idle_slots = s.per_pe.size() * s.max - s.total;
  return s;
}

}  // namespace treesim::sparse
