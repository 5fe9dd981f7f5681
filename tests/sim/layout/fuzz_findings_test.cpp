// Inputs the layout fuzzer (tests/fuzz/layout_fuzz.cpp) found mishandled: each now binds or fails
// with its diagnostic at once.
#include <gtest/gtest.h>

#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"
#include "tests/sim/layout/machines.h"

namespace treesim::layout {
namespace {

// A target range above the table limit with two parts of one stride: the row-major collision
// search met the pair only after 24 million steps (a 10 s timeout and ~1 GB under ASan), then
// gave up with E064. The equal strides are reported as the collision they are.
TEST(LayoutFuzzFindings, EqualStridesInALargeTimeRangeCollideAtOnce) {
  const std::string text = "((3_Time:1, 4_PE), (24444444_Time:1))";
  const machine::MachineConfig m = testing::toy();
  ParseResult p = parse_layout(text, m);
  ASSERT_TRUE(p) << p.error->render();
  BindResult b = bind_layout(*p.layout, {12, 24444444}, m);
  ASSERT_FALSE(b);
  const Diagnostic& d = b.validation.errors.front();
  EXPECT_EQ(d.code, "E063");
  EXPECT_EQ(d.message, "elements (0,1) and (4,0) both map to time step 1 at the same unit and address");
  EXPECT_EQ(d.column, 21u);
  EXPECT_EQ(d.length, 15u);
}

}  // namespace
}  // namespace treesim::layout
