// How A splits into the PEs' shares (spmv_shares.cpp), and what the placement (spmv_place.cpp) asks
// of A's rows and columns while it tries pass counts and column tiles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "kernels/spmv/spmv.h"

namespace treesim::kernels {

inline bool by_row(const sparse::Triple& x, const sparse::Triple& y) { return x.row < y.row; }

// A, with what every try of a placement asks of its rows, found once: its entries per row, and
// whether the entries come row after row (as the readers return them: then a range of rows is a
// slice of them).
struct ARows {
  explicit ARows(const sparse::Coo& a)
      : a(a),
        entries(sparse::row_entries(a)),
        in_order(std::is_sorted(a.entries.begin(), a.entries.end(), by_row)) {}
  const sparse::Coo& a;
  std::vector<std::uint64_t> entries;
  bool in_order = false;
};

// A column's group: no division for groups of one (every encoding but BSR and n:m), on every
// entry of every try.
inline std::uint64_t group_of(std::uint64_t col, std::uint64_t group) {
  return group == 1 ? col : col / group;
}

// Columns travel in groups that the encoding's column levels keep together (BSR's block columns,
// an n:m level's m), so that renumbering a PE's columns keeps every block whole.
// Rows, likewise: a PE's rows start at a block row's first (BSR's 2 for bsr2x2), so that no block is
// cut between two PEs.
std::uint64_t dim_group(const sparse::Encoding& e, std::size_t dim);

// Renumbers a share's columns over the column groups its entries touch, in order: an entry's
// column becomes its group's local number × group + its place in the group. Returns the groups'
// global columns (the x rows the share needs). The tables span A's column groups and are cleared
// once: a share's groups are stamped with its own number.
class ColumnRenumbering {
 public:
  ColumnRenumbering(std::uint64_t cols, std::uint64_t group)
      : group_(group), stamp_((cols + group - 1) / group, UINT64_MAX), local_(stamp_.size(), 0) {}

  std::vector<std::uint64_t> apply(std::vector<sparse::Triple>& entries, std::uint64_t share) {
    groups_.clear();
    for (const sparse::Triple& t : entries)
      if (const std::uint64_t g = group_of(t.col, group_); stamp_[g] != share)
        stamp_[g] = share, groups_.push_back(g);
    std::sort(groups_.begin(), groups_.end());
    std::vector<std::uint64_t> cols;
    cols.reserve(groups_.size() * group_);
    for (std::size_t k = 0; k < groups_.size(); ++k) {
      local_[groups_[k]] = k;
      for (std::uint64_t c = groups_[k] * group_; c < (groups_[k] + 1) * group_; ++c) cols.push_back(c);
    }
    if (group_ == 1)
      for (sparse::Triple& t : entries) t.col = local_[t.col];
    else
      for (sparse::Triple& t : entries) t.col = local_[t.col / group_] * group_ + t.col % group_;
    return cols;
  }

 private:
  std::uint64_t group_;
  std::vector<std::uint64_t> stamp_, local_, groups_;
};

// The parts A splits into by a partition's rules: `parts` parts, row ranges (sim/sparse/partition.h)
// × grid_cols column ranges of whole column groups with 2d (one otherwise); part = row range ·
// grid_cols + column range.
class PartGrid {
 public:
  PartGrid(const sparse::Coo& a, const sparse::Encoding& e, sparse::Partition kind, std::uint64_t parts,
           std::uint64_t grid_cols, const std::vector<std::uint64_t>& row_entries)
      : grid_cols_(kind == sparse::Partition::k2d ? std::max<std::uint64_t>(grid_cols, 1) : 1),
        row_starts_(sparse::row_bounds(kind, row_entries, std::max<std::uint64_t>(parts / grid_cols_, 1),
                                       dim_group(e, 0))),
        col_starts_(sparse::even_bounds(a.cols, grid_cols_, dim_group(e, 1))) {}

  std::uint64_t grid_cols() const { return grid_cols_; }
  std::uint64_t parts() const { return (row_starts_.size() - 1) * grid_cols_; }
  std::uint64_t part_of(const sparse::Triple& t) const {
    return range_of(row_starts_, t.row) * grid_cols_ + (grid_cols_ > 1 ? range_of(col_starts_, t.col) : 0);
  }
  std::uint64_t row_begin(std::uint64_t part) const { return row_starts_[part / grid_cols_]; }
  std::uint64_t row_end(std::uint64_t part) const { return row_starts_[part / grid_cols_ + 1]; }

 private:
  static std::uint64_t range_of(const std::vector<std::uint64_t>& starts, std::uint64_t i) {
    return static_cast<std::uint64_t>(std::upper_bound(starts.begin(), starts.end() - 1, i) -
                                      starts.begin()) -
           1;
  }
  std::uint64_t grid_cols_;
  std::vector<std::uint64_t> row_starts_, col_starts_;
};

// Each share of A split by `kind` into `parts` parts (× `grid_cols` with 2d), each cut into
// `col_tiles` column tiles: f(part, tile, share) with the share's entries renumbered over the
// columns it touches. With `heaviest_first`, the parts come heaviest first.
void for_each_share(const ARows& a_rows, const sparse::Encoding& e, sparse::Partition kind, std::uint64_t pes,
                    std::uint64_t parts, std::uint64_t grid_cols, std::uint64_t col_tiles,
                    const std::function<void(std::uint64_t, std::uint64_t, PeShare&)>& f,
                    bool heaviest_first = false);

}  // namespace treesim::kernels
