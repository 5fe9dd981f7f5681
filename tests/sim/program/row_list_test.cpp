// Row lists (row_list.h): the text of a row gather's rows, parsed and printed in its shortest form.
#include "sim/program/row_list.h"

#include <stdexcept>

#include <gtest/gtest.h>

namespace treesim::program {
namespace row_list_test {

using Rows = std::vector<std::uint64_t>;
constexpr std::uint64_t P = kPadRow;

Rows parsed(const std::string& text) {
  std::string error;
  auto v = parse_row_list(text, error);
  EXPECT_TRUE(v) << text << ": " << error;
  return v ? v->expanded() : Rows{};
}

std::string error_of(const std::string& text) {
  std::string error;
  EXPECT_FALSE(parse_row_list(text, error)) << text;
  return error;
}

TEST(RowList, ItemsAreRowsRunsAndPadding) {
  EXPECT_EQ(parsed("4-6,_,9,_3"), (Rows{4, 5, 6, P, 9, P, P, P}));
  EXPECT_EQ(parsed("7"), (Rows{7}));
  EXPECT_EQ(parsed("3-3"), (Rows{3}));
}

TEST(RowList, PrintJoinsRunsAndPadding) {
  EXPECT_EQ(print_row_list(RowList(Rows{4, 5, 6, P, 9, P, P, P})), "4-6,_,9,_3");
  EXPECT_EQ(print_row_list(RowList(Rows{2, 1, 0})), "2,1,0");
  EXPECT_EQ(print_row_list(RowList(Rows{0, 1, 2, 0, 1, 2})), "0-2,0-2");
}

TEST(RowList, PrintedTextParsesBack) {
  const Rows rows{0, 1, P, 5, 7, 8, 9, P, P, 3};
  EXPECT_EQ(parsed(print_row_list(RowList(rows))), rows);
}

TEST(RowList, GapsAreTheirOwnItemsApartFromPadding) {
  constexpr std::uint64_t G = kGapRow;
  EXPECT_EQ(parsed("1,~2,_,~"), (Rows{1, G, G, P, G}));
  const RowList rows(Rows{1, G, G, P, G});
  EXPECT_EQ(print_row_list(rows), "1,~2,_,~");
  EXPECT_EQ(rows.run_count(), 4u);
  EXPECT_TRUE(rows.has_gaps());
  EXPECT_FALSE(RowList(Rows{1, P}).has_gaps());
  EXPECT_NE(error_of("~0").find("K gaps, K >= 1"), std::string::npos);
}

TEST(RowList, BadItemsNameWhatWasExpected) {
  EXPECT_NE(error_of("5-3").find("'5-3'"), std::string::npos);
  EXPECT_NE(error_of("1,,2").find("got ''"), std::string::npos);
  EXPECT_NE(error_of("_0").find("K >= 1"), std::string::npos);
  EXPECT_NE(error_of("x").find("expected a row N"), std::string::npos);
  EXPECT_NE(error_of("-4").find("expected a row N"), std::string::npos);
}

TEST(RowList, TooLongAListIsRefusedBeforeItIsMade) {
  EXPECT_NE(error_of("0-999999999999").find("more than"), std::string::npos);
  EXPECT_NE(error_of("_999999999999").find("more than"), std::string::npos);
}

// Runs: rows that follow each other and padding after padding join, so equal lists have equal runs;
// positions inside runs read back.
TEST(RowList, HoldsRunsAndReadsBackEveryPosition) {
  const Rows rows{3, 4, 5, P, P, 9, 2, 3, P};
  RowList l;
  for (std::uint64_t r : rows) l.add(r);
  EXPECT_EQ(l.run_count(), 5u);  // 3-5, _2, 9, 2-3, _
  EXPECT_EQ(l.size(), rows.size());
  EXPECT_EQ(l, RowList(rows));
  for (std::size_t i = 0; i < rows.size(); ++i) EXPECT_EQ(l.at(i), rows[i]) << i;
  Rows part;
  l.for_each(1, 6, [&](std::uint64_t at, const RowRun& r) {
    EXPECT_EQ(at, 1 + part.size());
    for (std::uint64_t k = 0; k < r.count; ++k) part.push_back(r.padding() ? P : r.first + k);
  });
  EXPECT_EQ(part, (Rows{4, 5, P, P, 9, 2}));
}

TEST(RowList, PaddingOfAnyLengthIsOneRun) {
  RowList l;
  l.add(7);
  l.add_padding(1000000);
  l.add(8);
  EXPECT_EQ(l.run_count(), 3u);
  EXPECT_EQ(l.size(), 1000002u);
  EXPECT_EQ(print_row_list(l), "7,_1000000,8");
}

TEST(RowList, ForEachStaysInsideTheList) {
  const RowList l(Rows{10, 11, 12, P, 2});
  int calls = 0;
  const auto count = [&](std::uint64_t, const RowRun&) { ++calls; };
  RowList().for_each(0, 5, count);  // empty
  l.for_each(2, 0, count);          // no rows
  l.for_each(5, 3, count);          // past the end
  EXPECT_EQ(calls, 0);
  Rows got;
  l.for_each(3, UINT64_MAX, [&](std::uint64_t, const RowRun& r) {  // n larger than what is left
    for (std::uint64_t k = 0; k < r.count; ++k) got.push_back(r.padding() ? P : r.first + k);
  });
  EXPECT_EQ(got, (Rows{P, 2}));
}

// Positions are 32-bit: a list that would pass UINT32_MAX rows is refused, not wrapped.
TEST(RowList, MoreRowsThanPositionsHoldIsRefused) {
  RowList l;
  l.add_padding(kRowListCapacity - 1);
  l.add(5);
  EXPECT_EQ(l.size(), kRowListCapacity);
  EXPECT_THROW(l.add(6), std::length_error);
  EXPECT_EQ(l.size(), kRowListCapacity);
  EXPECT_EQ(l.at(kRowListCapacity - 1), 5u);
}

}  // namespace row_list_test
}  // namespace treesim::program
