// A row gather's list (Load::rows, Store::rows): row i of the block's matrix is tensor row rows[i],
// or a padding row (kPadRow). As text, comma-separated items: `N`, an ascending run `N-M` (N..M),
// `_` (one padding row) or `_K` (K padding rows): "4-6,_,9,_3" is 4, 5, 6, pad, 9, pad, pad, pad.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace treesim::program {

inline constexpr std::uint64_t kPadRow = ~std::uint64_t{0};
// More rows than this in one list are refused (the simulator's instruction size limit).
inline constexpr std::uint64_t kMaxRowListLength = std::uint64_t{1} << 26;

// The list, or nullopt with `error` saying what was expected.
std::optional<std::vector<std::uint64_t>> parse_row_list(std::string_view text, std::string& error);
// The shortest text of the items above (runs and padding joined).
std::string print_row_list(const std::vector<std::uint64_t>& rows);

}  // namespace treesim::program
