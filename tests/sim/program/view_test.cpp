// A load's view: the tensor read by another shape of the same elements (one program's kernels sharing
// a DRAM tensor, each by its own shape).
#include <gtest/gtest.h>

#include "sim/layout/parse.h"
#include "sim/program/checked_program.h"
#include "sim/program/program_text.h"
#include "tests/configs.h"

namespace treesim::program {
namespace view_test {

// A 3×3 same-padded window over a 1×6×5×4 NHWC input, block of all 30×36 window rows and columns.
Load windowed(const std::string& tensor, const machine::MachineConfig& m) {
  Load l;
  l.tensor = tensor;
  l.layout = layout::parse_layout_or_throw("((30:36), (36:1))", m);
  l.offset = {0, 0};
  l.shape = {30, 36};
  Window w;
  w.r = w.s = 3;
  w.pad_top = w.pad_left = 1;
  w.out_h = 6, w.out_w = 5, w.channels = 4;
  l.window = w;
  return l;
}

TEST(LoadView, AWindowedLoadThroughAViewMovesWhatItMovesFromTheReshapedTensor) {
  const machine::MachineConfig m = testing::mini();
  Program as_matrix, as_nhwc;
  as_matrix.tensors.push_back({"Y", {30, 4}, DType::kInt8});  // a GEMM's output: pixels × channels
  as_nhwc.tensors.push_back({"X", {1, 6, 5, 4}, DType::kInt8});
  Load through = windowed("Y", m);
  through.view = {1, 6, 5, 4};
  as_matrix.instrs.push_back(through);
  as_nhwc.instrs.push_back(windowed("X", m));
  const CheckedProgram a = check_program(as_matrix, m), b = check_program(as_nhwc, m);
  ASSERT_TRUE(a.ok()) << a.errors.front().message();
  ASSERT_TRUE(b.ok()) << b.errors.front().message();
  const Transfer &ta = *a.instrs[0].transfer, &tb = *b.instrs[0].transfer;
  EXPECT_EQ(ta.plan.dram_read_bytes, tb.plan.dram_read_bytes);
  EXPECT_EQ(ta.dram_runs->runs, tb.dram_runs->runs);
  EXPECT_EQ(ta.window->tensor_shape, tb.window->tensor_shape);
  EXPECT_EQ(a.instrs[0].reads[0].lo, b.instrs[0].reads[0].lo);
  EXPECT_EQ(a.instrs[0].reads[0].hi, b.instrs[0].reads[0].hi);
}

TEST(LoadView, AViewOfAnotherElementCountIsRefusedNamingBothShapes) {
  const machine::MachineConfig m = testing::mini();
  Program p;
  p.tensors.push_back({"Y", {30, 4}, DType::kInt8});
  Load l = windowed("Y", m);
  l.view = {1, 6, 5, 3};
  p.instrs.push_back(l);
  const CheckedProgram c = check_program(p, m);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.errors[0].message().find("view (1,6,5,3) has 90 elements; tensor 'Y' of shape (30,4) has 120"),
            std::string::npos)
      << c.errors[0].message();
}

TEST(LoadView, TextRoundTrips) {
  const std::vector<std::string> levels{"L2B", "L1B", "PE"};
  const std::string text =
      "tensor Y shape=30,4 dtype=int8\n"
      "load tensor=Y layout=\"((30:36), (36:1))\" lm=0 offset=0,0 shape=30,36 "
      "window=3,3,1,1,1,1,1,1,6,5,0,4 view=1,6,5,4\n";
  const Program p = parse_program(text, "v.txt", levels);
  EXPECT_EQ(std::get<Load>(p.instrs[0]).view, (std::vector<std::uint64_t>{1, 6, 5, 4}));
  EXPECT_EQ(parse_program(print_program(p, levels), "w.txt", levels), p);
}

}  // namespace view_test
}  // namespace treesim::program
