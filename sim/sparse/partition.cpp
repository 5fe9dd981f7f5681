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

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

}  // namespace

std::uint64_t PartitionMap::owner(std::uint64_t row, std::uint64_t col) const {
  switch (kind) {
    case Partition::kRows:
      return row / ceil_div(rows, pes);
    case Partition::kNnz:
      // The last range whose start is <= row.
      return static_cast<std::uint64_t>(std::upper_bound(row_starts.begin(), row_starts.end() - 1, row) -
                                        row_starts.begin()) -
             1;
    case Partition::k2d:
      return (row / ceil_div(rows, grid_rows)) * grid_cols + col / ceil_div(cols, grid_cols);
  }
  return 0;
}

PartitionMap make_partition(const SparseMatrix& m, Partition kind, std::uint64_t pes) {
  PartitionMap p{kind, std::max<std::uint64_t>(pes, 1), m.rows, m.cols, 1, 1, {}};
  p.grid_rows = p.pes;
  if (kind == Partition::k2d) {
    // The squarest grid: the largest divisor of pes not above its square root.
    std::uint64_t r = static_cast<std::uint64_t>(std::sqrt(static_cast<double>(p.pes)));
    while (r > 1 && p.pes % r != 0) --r;
    p.grid_cols = std::max<std::uint64_t>(r, 1);
    p.grid_rows = p.pes / p.grid_cols;
  }
  if (kind == Partition::kNnz) {
    // Row boundaries where the running count of stored entries crosses k × total / pes.
    std::vector<std::uint64_t> per_row(m.rows, 0);
    std::uint64_t total = 0;
    for (const Triple& t : stored_entries(m).entries) ++per_row[t.row], ++total;
    p.row_starts.assign(1, 0);
    std::uint64_t running = 0, row = 0;
    for (std::uint64_t k = 1; k < p.pes; ++k) {
      const double target = static_cast<double>(total) * static_cast<double>(k) / static_cast<double>(p.pes);
      // A row goes to the side of the boundary that holds more of it, so one heavy row does not
      // leave a PE empty.
      while (row < m.rows && static_cast<double>(running) + static_cast<double>(per_row[row]) / 2 <= target)
        running += per_row[row++];
      p.row_starts.push_back(std::max(row, p.row_starts.back()));
    }
    p.row_starts.push_back(m.rows);
  }
  return p;
}

PartitionStats partition_stats(const SparseMatrix& m, const PartitionMap& map) {
  PartitionStats s;
  s.per_pe.assign(map.pes, 0);
  s.grid_rows = map.grid_rows;
  s.grid_cols = map.grid_cols;
  for (const Triple& t : stored_entries(m).entries) ++s.per_pe[map.owner(t.row, t.col)], ++s.total;
  s.min = *std::min_element(s.per_pe.begin(), s.per_pe.end());
  s.max = *std::max_element(s.per_pe.begin(), s.per_pe.end());
  s.mean = static_cast<double>(s.total) / static_cast<double>(map.pes);
  s.imbalance = s.total == 0 ? 0.0 : static_cast<double>(s.max) / s.mean;
  s.idle_slots = map.pes * s.max - s.total;
  return s;
}

}  // namespace treesim::sparse
