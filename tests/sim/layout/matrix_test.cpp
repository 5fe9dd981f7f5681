// layout::matrix and layout::row_vector build the value the parser gives for the same text: checked
// over random specs on the board's levels against the text written out by hand, with its pad prefix,
// pieces, lanes, levels split over both axes and copies over part of a level; the canonical text is
// that text.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <random>

#include "sim/layout/matrix.h"
#include "sim/layout/parse.h"
#include "tests/configs.h"

namespace treesim::layout {
namespace {

std::string prefix(const std::vector<LevelSplit>& levels) {
  std::string s;
  for (const LevelSplit& l : levels)
    s += l.stride ? fmt::format("{}_{}:{}, ", l.units, l.level, l.stride)
                  : fmt::format("{}_{}, ", l.units, l.level);
  return s;
}

std::uint64_t units(const std::vector<LevelSplit>& levels) {
  std::uint64_t n = 1;
  for (const LevelSplit& l : levels) n *= l.units;
  return n;
}

// The text of the spec, written out as the note's grammar reads it.
std::string text_of(const MatrixSpec& s) {
  const std::uint64_t w = s.words, padded_rows = s.pieces * units(s.row_levels) * s.r;
  const std::string pad = s.rows == padded_rows && s.cols == units(s.col_levels) * s.c
                              ? ""
                              : fmt::format("({},{})/", s.rows, s.cols);
  const std::string pieces = s.pieces > 1 ? fmt::format("{}:{}, ", s.pieces, s.r * s.c / w) : "";
  const std::string lanes = w > 1 ? fmt::format(", {}_W", w) : "";
  std::string copies;
  for (const LevelSplit& l : s.copies)
    copies += fmt::format("{}{}_{}:{}", copies.empty() ? "; B@[" : ", ", l.units, l.level, l.stride);
  if (!copies.empty()) copies += "]";
  return pad + fmt::format("(({}{}{}:{}), ({}{}:1{}){})", pieces, prefix(s.row_levels), s.r, s.c / w,
                           prefix(s.col_levels), s.c / w, lanes, copies);
}

// Each level of the machine on the rows, the columns or neither, with 1 to its fan-out units; or a
// u × v grid of its units split over both (unit i·v + j), or its rows' digit copied over the other.
MatrixSpec random_spec(std::mt19937& gen, const machine::MachineConfig& m) {
  MatrixSpec s;
  for (const auto& level : m.levels) {
    const int side = static_cast<int>(gen() % 5);
    const LevelSplit use{level.name, 1 + gen() % level.fanout};
    if (side == 1) s.row_levels.push_back(use);
    if (side == 2) s.col_levels.push_back(use);
    if (side >= 3 && level.fanout >= 4) {
      const std::uint64_t u = 2, v = level.fanout / 2;
      s.row_levels.push_back({level.name, u, v});
      (side == 3 ? s.col_levels : s.copies).push_back({level.name, v, 1});
    }
  }
  s.words = gen() % 2 ? 1 : 4;
  s.r = 1 + gen() % 9;
  s.c = s.words * (1 + gen() % 9);
  s.pieces = 1 + gen() % 3;
  s.rows = s.pieces * units(s.row_levels) * s.r - gen() % 2 * (gen() % s.r);
  s.cols = units(s.col_levels) * s.c - gen() % 2 * (gen() % s.c);
  return s;
}

TEST(Matrix, IsTheParsersValueOfTheSameText) {
  const machine::MachineConfig m = treesim::testing::config("mncore-board");
  const std::vector<std::string> names = level_names(m);
  std::mt19937 gen(7);
  for (int i = 0; i < 500; ++i) {
    const MatrixSpec s = random_spec(gen, m);
    const std::string text = text_of(s);
    const TensorLayout built = matrix(s, names);
    EXPECT_EQ(built, parse_layout_or_throw(text, m)) << text;
    EXPECT_EQ(to_string(built), to_string(parse_layout_or_throw(text, m))) << text;
    EXPECT_EQ(built.source, to_string(built)) << text;
  }
}

TEST(Matrix, RowVectorIsOneRowOfTheMatrix) {
  const machine::MachineConfig m = treesim::testing::config("mncore-board");
  const std::vector<LevelSplit> cols{{"L1B", 8}, {"PE", 2}};
  EXPECT_EQ(row_vector(64, cols, 4, 1, level_names(m)), parse_layout_or_throw("((8_L1B, 2_PE, 4:1))", m));
  EXPECT_EQ(row_vector(60, cols, 8, 4, level_names(m)),
            parse_layout_or_throw("(60)/((8_L1B, 2_PE, 2:1, 4_W))", m));
}

}  // namespace
}  // namespace treesim::layout
