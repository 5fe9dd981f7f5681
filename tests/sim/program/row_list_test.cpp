// Row lists (row_list.h): the text of a row gather's rows, parsed and printed in its shortest form.
#include "sim/program/row_list.h"

#include <gtest/gtest.h>

namespace treesim::program {
namespace row_list_test {

using Rows = std::vector<std::uint64_t>;
constexpr std::uint64_t P = kPadRow;

Rows parsed(const std::string& text) {
  std::string error;
  auto v = parse_row_list(text, error);
  EXPECT_TRUE(v) << text << ": " << error;
  return v ? *v : Rows{};
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
  EXPECT_EQ(print_row_list({4, 5, 6, P, 9, P, P, P}), "4-6,_,9,_3");
  EXPECT_EQ(print_row_list({2, 1, 0}), "2,1,0");
  EXPECT_EQ(print_row_list({0, 1, 2, 0, 1, 2}), "0-2,0-2");
}

TEST(RowList, PrintedTextParsesBack) {
  const Rows rows{0, 1, P, 5, 7, 8, 9, P, P, 3};
  EXPECT_EQ(parsed(print_row_list(rows)), rows);
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

}  // namespace row_list_test
}  // namespace treesim::program
