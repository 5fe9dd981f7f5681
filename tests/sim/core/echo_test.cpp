#include "sim/core/echo.h"

#include <gtest/gtest.h>

namespace treesim::core {
namespace {

TEST(Echo, PrintableTextIsUnchanged) { EXPECT_EQ(echo("int8 (12, 8)"), "int8 (12, 8)"); }

TEST(Echo, ControlBytesAndInvalidUtf8AreEscaped) {
  EXPECT_EQ(echo("a\nb\r\tc\\"), "a\\nb\\r\\tc\\\\");
  EXPECT_EQ(echo(std::string("x\x1b[31m\xff", 7)), "x\\x1B[31m\\xFF");
  EXPECT_EQ(echo(std::string("\0", 1)), "\\x00");
}

TEST(Echo, LongInputIsCutAfterTheLimit) {
  const std::string cut = echo(std::string(100'000'000, 'a'));
  EXPECT_EQ(cut, std::string(80, 'a') + "...");
}

TEST(Echo, AnEscapeIsNeverCutInHalf) {
  EXPECT_EQ(echo(std::string(79, 'a') + "\n", 80), std::string(79, 'a') + "...");
}

TEST(Echo, LimitZeroKeepsEverything) { EXPECT_EQ(echo(std::string(200, 'b'), 0), std::string(200, 'b')); }

}  // namespace
}  // namespace treesim::core
