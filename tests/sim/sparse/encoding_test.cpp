// The encoding parser and printer: MLIR's written forms, the named shortcuts, round trips, and
// errors with the caret's column on the offending token.
#include <gtest/gtest.h>

#include "sim/sparse/encoding.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::sparse {
namespace {

TEST(Encoding, ParsesTheFullMlirFormWithWidths) {
  const Encoding e = parse_encoding(
      "#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed), posWidth = 32, crdWidth = 16 "
      "}>");
  ASSERT_EQ(e.levels.size(), 2u);
  EXPECT_EQ(e.levels[0].type.format, LevelFormat::kDense);
  EXPECT_EQ(e.levels[1].type.format, LevelFormat::kCompressed);
  EXPECT_EQ(e.levels[1].expr.dim, 1u);
  EXPECT_EQ(e.pos_width, 32);
  EXPECT_EQ(e.crd_width, 16);
}

TEST(Encoding, BareMapFieldEqualsTheFullForm) {
  EXPECT_EQ(parse_encoding("map = (i, j) -> (i : dense, j : compressed)"),
            parse_encoding("#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>"));
}

TEST(Encoding, ShortcutsExpandToTheirMaps) {
  EXPECT_EQ(parse_encoding("csr"), parse_encoding("map = (i, j) -> (i : dense, j : compressed)"));
  EXPECT_EQ(parse_encoding("dcsc"), parse_encoding("map = (i, j) -> (j : compressed, i : compressed)"));
  EXPECT_EQ(parse_encoding("coo"),
            parse_encoding("map = (i, j) -> (i : compressed(nonunique), j : singleton)"));
  EXPECT_EQ(
      parse_encoding("bsr2x2"),
      parse_encoding(
          "(i, j) -> (i floordiv 2 : dense, j floordiv 2 : compressed, i mod 2 : dense, j mod 2 : dense)"));
  EXPECT_EQ(parse_encoding("2:4"),
            parse_encoding("(i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : block2_4)"));
}

TEST(Encoding, NameSlashWidthSetsBothWidths) {
  const Encoding e = parse_encoding("csr/16");
  EXPECT_EQ(print_encoding(e),
            print_encoding(
                parse_encoding("map = (i, j) -> (i : dense, j : compressed), posWidth = 16, crdWidth = 16")));
  EXPECT_EQ(parse_encoding("bsr2x2/8").pos_width, 8);
  EXPECT_EQ(parse_encoding("ell4/32").crd_width, 32);
}

TEST(Encoding, NameSlashWidthRefusesOtherWidths) {
  try {
    parse_encoding("csr/12");
    FAIL() << "csr/12 parsed";
  } catch (const SparseError& e) {
    EXPECT_NE(std::string(e.what()).find("W one of 8, 16, 32, 64"), std::string::npos) << e.what();
  }
}

TEST(Encoding, FamiliesTakeTheirSizes) {
  const Encoding b = parse_encoding("bsr3x5");
  EXPECT_EQ(b.levels[0].expr.k, 3u);
  EXPECT_EQ(b.levels[1].expr.k, 5u);
  EXPECT_EQ(parse_encoding("ell7").levels[0].expr.k, 7u);
  const Encoding nm = parse_encoding("1:8");
  EXPECT_EQ(nm.levels[2].type.n, 1u);
  EXPECT_EQ(nm.levels[2].type.m, 8u);
}

TEST(Encoding, StructuredAndNOutOfMSpellingsEqualBlockNM) {
  const Encoding a =
      parse_encoding("(i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : structured[2, 4])");
  EXPECT_EQ(a, parse_encoding("(i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : n_out_of_m[2, 4])"));
  EXPECT_EQ(a, parse_encoding("2:4"));
}

TEST(Encoding, EllCountingFormParses) {
  const Encoding e = parse_encoding("map = [c](i, j) -> (c * 3 * i : dense, i : dense, j : compressed)");
  EXPECT_TRUE(e.is_ell());
  EXPECT_EQ(e.levels[0].expr.op, ExprOp::kCount);
  EXPECT_EQ(e.levels[0].expr.k, 3u);
}

TEST(Encoding, PrintOfParseRoundTripsEveryShortcut) {
  for (const auto& s : shortcuts()) {
    const std::string printed = print_encoding(parse_encoding(s.name));
    EXPECT_EQ(print_encoding(parse_encoding(printed)), printed) << s.name;
    EXPECT_EQ(print_map(parse_encoding(s.name)), s.text) << s.name;
  }
}

TEST(Encoding, PrintsAsMlirWritesIt) {
  const std::string s =
      "#sparse_tensor.encoding<{ map = (i, j) -> (i : compressed(nonunique, nonordered), j : singleton), "
      "posWidth = 8, crdWidth = 64 }>";
  EXPECT_EQ(print_encoding(parse_encoding(s)), s);
  EXPECT_EQ(print_encoding(parse_encoding("(r, c) -> (r : dense, c : loose_compressed(nonordered))")),
            "#sparse_tensor.encoding<{ map = (r, c) -> (r : dense, c : loose_compressed(nonordered)) }>");
}

// The column of the caret, and that the message names what was expected.
std::pair<std::size_t, std::string> error_of(const std::string& text) {
  try {
    parse_encoding(text);
  } catch (const SparseError& e) {
    return {e.column(), e.what()};
  }
  return {0, "no error"};
}

TEST(EncodingErrors, UnknownLevelTypeIsUnderlined) {
  const auto [col, what] = error_of("(i, j) -> (i : dense, j : compresed)");
  EXPECT_EQ(col, 27u);
  EXPECT_NE(what.find("unknown level type 'compresed'"), std::string::npos) << what;
}

TEST(EncodingErrors, CaretLineSitsUnderTheToken) {
  try {
    parse_encoding("(i, j) -> (i : dense, k : compressed)");
    FAIL();
  } catch (const SparseError& e) {
    EXPECT_EQ(e.render(),
              "(i, j) -> (i : dense, k : compressed)\n"
              "                      ^\n"
              "encoding: unknown dimension 'k'\n");
  }
}

TEST(EncodingErrors, NOutOfMRulesUseMlirsWording) {
  EXPECT_NE(error_of("(i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : block5_4)")
                .second.find("expected n <= m"),
            std::string::npos);
  EXPECT_NE(error_of("(i, j) -> (i : compressed, j floordiv 4 : dense, j mod 4 : block2_4)")
                .second.find("expected all dense lvlTypes before a n_out_of_m level"),
            std::string::npos);
  EXPECT_NE(error_of("(i, j) -> (j mod 4 : block2_4, i : dense, j floordiv 4 : dense)")
                .second.find("expected n_out_of_m to be the last level type"),
            std::string::npos);
  EXPECT_NE(error_of("(i, j) -> (i : dense, j floordiv 8 : dense, j mod 8 : block2_4)")
                .second.find("expected 1xm block structure"),
            std::string::npos);
}

TEST(EncodingErrors, DimensionThatCannotBeRecovered) {
  const auto [col, what] = error_of("(i, j) -> (i : dense, j floordiv 2 : compressed)");
  EXPECT_EQ(col, 23u);
  EXPECT_NE(what.find("dimension 'j' cannot be recovered"), std::string::npos) << what;
}

TEST(EncodingErrors, SingletonNeedsANonuniqueLevelBefore) {
  EXPECT_NE(
      error_of("(i, j) -> (i : compressed, j : singleton)").second.find("expected a nonunique level before"),
      std::string::npos);
}

TEST(EncodingErrors, WidthMustBeAPowerOfTwoByteCount) {
  const auto [col, what] = error_of("map = (i, j) -> (i : dense, j : compressed), posWidth = 12");
  EXPECT_EQ(col, 57u);
  EXPECT_NE(what.find("expected posWidth to be 0, 8, 16, 32 or 64, got 12"), std::string::npos) << what;
}

TEST(EncodingErrors, ThreeDimensionsAreNotAMatrix) {
  EXPECT_NE(error_of("(i, j, k) -> (i : dense, j : dense, k : dense)").second.find("expected 2 dimensions"),
            std::string::npos);
}

TEST(EncodingErrors, TrailingTextAndMissingPieces) {
  EXPECT_NE(
      error_of("(i, j) -> (i : dense, j : compressed) x").second.find("unexpected 'x' after the encoding"),
      std::string::npos);
  EXPECT_NE(error_of("csr csr").second.find("unknown field or encoding name 'csr'"), std::string::npos);
  EXPECT_NE(error_of("#sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed)")
                .second.find("expected '}'"),
            std::string::npos);
  EXPECT_NE(error_of("").second.find("expected a field"), std::string::npos);
  EXPECT_NE(error_of("posWidth = 8").second.find("expected a map field"), std::string::npos);
}

TEST(EncodingErrors, HugeIntegerIsRefused) {
  EXPECT_NE(error_of("(i, j) -> (i floordiv 99999999999999999999999 : dense)")
                .second.find("expected an integer up to"),
            std::string::npos);
}

}  // namespace
}  // namespace treesim::sparse
