// A row gather's list (Load::rows, Store::rows): row i of the block's matrix is tensor row rows[i],
// a padding row (kPadRow: a load writes the pad value) or a gap (kGapRow: a load writes nothing, the
// LM keeps what it held). Neither moves a byte. Held as runs — ascending rows, padding or gaps — so
// that a list padded to the longest PE's rows costs one run per PE, not a word per row. As text,
// comma-separated items: `N`, an ascending run `N-M` (N..M), `_` (one padding row), `_K` (K padding
// rows), `~` (one gap) or `~K` (K gaps): "4-6,_,9,~3" is 4, 5, 6, pad, 9, gap, gap, gap.
// A run costs 12 bytes (its first row and its first position; its length is where the next starts):
// a pass's x gather over 10^7 nonzeros has millions of one-row runs.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace treesim::program {

inline constexpr std::uint64_t kPadRow = ~std::uint64_t{0};
inline constexpr std::uint64_t kGapRow = kPadRow - 1;
// More rows than this in one list are refused (the simulator's instruction size limit).
inline constexpr std::uint64_t kMaxRowListLength = std::uint64_t{1} << 26;
// A list holds at most this many rows (positions are 32-bit); add_run throws std::length_error past it.
inline constexpr std::uint64_t kRowListCapacity = UINT32_MAX;

// `count` rows from `first` upward, or `count` padding rows (first = kPadRow) or gaps (kGapRow).
struct RowRun {
  std::uint64_t first = kPadRow, count = 0;
  bool padding() const { return first >= kGapRow; }  // no tensor row: padding or a gap
  bool gap() const { return first == kGapRow; }
  bool operator==(const RowRun& o) const { return first == o.first && count == o.count; }
};

class RowList {
 public:
  RowList() = default;
  // Each element a row or kPadRow.
  explicit RowList(const std::vector<std::uint64_t>& rows);

  // Appends rows; a row that continues the last run (the next row up, padding after padding, a gap
  // after a gap) joins it, so that equal lists have equal runs.
  void add(std::uint64_t row) { add_run(row, 1); }
  // first..first+count-1, padding or gaps. Inline: a gather's list is built a row at a time.
  void add_run(std::uint64_t first, std::uint64_t count) {
    if (count == 0) return;
    if (count > kRowListCapacity - size_) too_long();
    gaps_ = gaps_ || first == kGapRow;
    if (!firsts_.empty()) {
      const std::uint64_t last = firsts_.back();
      if (first >= kGapRow ? last == first : last < kGapRow && first == last + (size_ - starts_.back())) {
        size_ += count;
        return;
      }
    }
    starts_.push_back(static_cast<std::uint32_t>(size_));
    firsts_.push_back(first);
    size_ += count;
  }
  void add_padding(std::uint64_t count) { add_run(kPadRow, count); }
  void add_gap(std::uint64_t count) { add_run(kGapRow, count); }
  // Room for `runs` runs, so that a long list (a row gather's, made once per pass) grows in one go.
  void reserve(std::size_t runs) { firsts_.reserve(runs), starts_.reserve(runs); }
  bool has_gaps() const { return gaps_; }

  std::uint64_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::size_t run_count() const { return firsts_.size(); }
  RowRun run(std::size_t k) const { return {firsts_[k], end_of(k) - starts_[k]}; }
  std::uint64_t at(std::uint64_t i) const;  // the row at position i < size() (kPadRow, kGapRow)
  std::vector<std::uint64_t> expanded() const;

  // f(position, run) for the parts of the runs inside positions [begin, begin + n), in order.
  template <typename F>
  void for_each(std::uint64_t begin, std::uint64_t n, F&& f) const {
    if (begin >= size_ || n == 0) return;
    const std::uint64_t end = begin + std::min(n, size_ - begin);
    std::size_t k = static_cast<std::size_t>(
                        std::upper_bound(starts_.begin(), starts_.end(), static_cast<std::uint32_t>(begin)) -
                        starts_.begin()) -
                    1;
    for (std::uint64_t at = begin; at < end; ++k) {
      const std::uint64_t first = firsts_[k], skip = at - starts_[k], take = std::min(end_of(k), end) - at;
      f(at, RowRun{first >= kGapRow ? first : first + skip, take});
      at += take;
    }
  }

  // Equal lists have equal runs (add_run joins what continues).
  bool operator==(const RowList& o) const {
    return size_ == o.size_ && firsts_ == o.firsts_ && starts_ == o.starts_;
  }

 private:
  [[noreturn]] static void too_long();  // throws std::length_error
  std::uint64_t end_of(std::size_t k) const { return k + 1 < starts_.size() ? starts_[k + 1] : size_; }
  std::vector<std::uint64_t> firsts_;  // each run's first row (kPadRow, kGapRow)
  std::vector<std::uint32_t> starts_;  // each run's first position
  std::uint64_t size_ = 0;
  bool gaps_ = false;
};

// The list, or nullopt with `error` saying what was expected.
std::optional<RowList> parse_row_list(std::string_view text, std::string& error);
// The shortest text of the items above (runs and padding joined).
std::string print_row_list(const RowList& rows);

}  // namespace treesim::program
