// Windowed loads (im2col): which tensor elements a block of the window's matrix reads, the block's
// values against a direct formula, the window in program text, and what the checker refuses.
#include "sim/program/window.h"

#include <gtest/gtest.h>

#include <random>

#include "sim/layout/parse.h"
#include "sim/program/checked_program.h"
#include "sim/program/program_text.h"
#include "tests/configs.h"

namespace treesim::program {
namespace {

Window window(std::uint64_t r, std::uint64_t stride, std::uint64_t pad, std::uint64_t out_h,
              std::uint64_t out_w, std::uint64_t channels, std::uint64_t dilation = 1) {
  Window w;
  w.r = w.s = r;
  w.stride_h = w.stride_w = stride;
  w.dilation_h = w.dilation_w = dilation;
  w.pad_top = w.pad_left = pad;
  w.out_h = out_h, w.out_w = out_w;
  w.channels = channels;
  return w;
}

std::uint64_t total(const std::vector<ElementRun>& runs) {
  std::uint64_t n = 0;
  for (const ElementRun& r : runs) n += r.count;
  return n;
}

TEST(WindowRuns, SamePaddedWindowsOverTheWholeMatrixReadTheWholeTensorOnce) {
  const std::vector<std::uint64_t> t{1, 4, 5, 2};
  const Window w = window(3, 1, 1, 4, 5, 2);
  const std::vector<ElementRun> runs = window_runs(w, t, {0, 0}, *window_matrix_shape(w, t));
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].first, 0u);
  EXPECT_EQ(runs[0].count, 40u);
}

TEST(WindowRuns, AStridedOneByOneReadsEveryOtherPixel) {
  const std::vector<std::uint64_t> t{1, 6, 6, 3};
  const Window w = window(1, 2, 0, 3, 3, 3);
  const std::vector<ElementRun> runs = window_runs(w, t, {0, 0}, {9, 3});
  EXPECT_EQ(total(runs), 27u);
  EXPECT_EQ(runs.size(), 9u);  // one pixel's 3 channels each
}

TEST(WindowRuns, ABlockOfOneChannelsTapsReadsOnlyThatChannel) {
  const std::vector<std::uint64_t> t{2, 5, 5, 4};
  const Window w = window(3, 1, 1, 5, 5, 4);
  // Columns are channel-major: columns [9, 18) are channel 1's nine taps.
  const std::vector<ElementRun> runs = window_runs(w, t, {0, 9}, {50, 9});
  EXPECT_EQ(total(runs), 50u);  // every pixel of both images, channel 1 only
  for (const ElementRun& r : runs) {
    EXPECT_EQ(r.count, 1u);
    EXPECT_EQ(r.first % 4, 1u);
  }
}

TEST(WindowRuns, ABlockOfRowsReadsOnlyTheImageRowsItsWindowsCover) {
  const std::vector<std::uint64_t> t{1, 10, 4, 1};
  const Window w = window(3, 1, 0, 8, 2, 1);
  // Output rows 2 and 3 (rows 4..7 of the matrix) cover image rows 2..5.
  const std::vector<ElementRun> runs = window_runs(w, t, {4, 0}, {4, 9});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].first, 2u * 4);
  EXPECT_EQ(runs[0].count, 4u * 4);
}

TEST(ExpandWindow, EveryBlockEqualsTheDirectFormula) {
  std::mt19937 gen(7);
  for (int trial = 0; trial < 200; ++trial) {
    auto pick = [&](std::uint64_t lo, std::uint64_t hi) {
      return std::uniform_int_distribution<std::uint64_t>(lo, hi)(gen);
    };
    const std::vector<std::uint64_t> t{pick(1, 2), pick(1, 7), pick(1, 7), pick(1, 5)};
    Window w;
    w.r = pick(1, 3), w.s = pick(1, 3);
    w.stride_h = pick(1, 2), w.stride_w = pick(1, 2), w.dilation_h = pick(1, 2), w.dilation_w = pick(1, 2);
    w.pad_top = pick(0, 2), w.pad_left = pick(0, 2);
    w.out_h = pick(1, 4), w.out_w = pick(1, 4);
    w.c0 = pick(0, t[3] - 1), w.channels = pick(1, t[3] - w.c0);
    ASSERT_EQ(window_error(w, t), "");
    const std::vector<std::uint64_t> full = *window_matrix_shape(w, t);
    const std::uint64_t r0 = pick(0, full[0] - 1), c0 = pick(0, full[1] - 1);
    const std::vector<std::uint64_t> offset{r0, c0}, shape{pick(1, full[0] - r0), pick(1, full[1] - c0)};
    std::vector<std::uint8_t> x(t[0] * t[1] * t[2] * t[3]);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<std::uint8_t>(i * 7 + 1);
    std::vector<std::uint8_t> got(shape[0] * shape[1]);
    expand_window(w, t, offset, shape, x.data(), 0, 1, -3, got.data());
    std::vector<bool> read(x.size(), false);
    for (std::uint64_t i = 0; i < shape[0]; ++i)
      for (std::uint64_t j = 0; j < shape[1]; ++j) {
        const std::uint64_t row = r0 + i, col = c0 + j;
        const std::uint64_t n = row / (w.out_h * w.out_w), oh = row / w.out_w % w.out_h, ow = row % w.out_w;
        const std::uint64_t c = col / (w.r * w.s), r = col / w.s % w.r, s = col % w.s;
        const std::int64_t h = static_cast<std::int64_t>(oh * w.stride_h + r * w.dilation_h) -
                               static_cast<std::int64_t>(w.pad_top);
        const std::int64_t v = static_cast<std::int64_t>(ow * w.stride_w + s * w.dilation_w) -
                               static_cast<std::int64_t>(w.pad_left);
        std::uint8_t want = static_cast<std::uint8_t>(-3);
        if (h >= 0 && v >= 0 && h < static_cast<std::int64_t>(t[1]) && v < static_cast<std::int64_t>(t[2])) {
          const std::uint64_t e =
              ((n * t[1] + static_cast<std::uint64_t>(h)) * t[2] + static_cast<std::uint64_t>(v)) * t[3] +
              w.c0 + c;
          want = x[e];
          read[e] = true;
        }
        ASSERT_EQ(got[i * shape[1] + j], want) << "trial " << trial << " element " << i << "," << j;
      }
    // The runs are exactly the elements read.
    std::vector<bool> in_runs(x.size(), false);
    for (const ElementRun& run : window_runs(w, t, offset, shape))
      for (std::uint64_t e = run.first; e < run.first + run.count; ++e) in_runs[e] = true;
    ASSERT_EQ(in_runs, read) << "trial " << trial;
  }
}

TEST(WindowError, NamesWhatIsWrong) {
  EXPECT_NE(window_error(window(3, 1, 1, 4, 4, 2), {4, 4, 2}).find("rank 4"), std::string::npos);
  EXPECT_NE(window_error(window(3, 0, 1, 4, 4, 2), {1, 4, 4, 2}).find("stride_h"), std::string::npos);
  Window w = window(3, 1, 1, 4, 4, 2);
  w.c0 = 1;
  EXPECT_NE(window_error(w, {1, 4, 4, 2}).find("channels [1, 3)"), std::string::npos);
}

TEST(WindowText, ALoadWithAWindowPrintsAndParsesBack) {
  const std::vector<std::string> levels{"L2B", "L1B", "MAB", "PE"};
  const Program p = parse_program(
      "tensor X shape=1,6,5,4 dtype=int8\n"
      "load tensor=X layout=\"((30:36), (36:1))\" lm=0 offset=0,0 shape=30,36 pad=-2 "
      "window=3,3,1,1,1,1,1,1,6,5,0,4\n",
      "p.txt", levels);
  const Load& l = std::get<Load>(p.instrs.at(0));
  ASSERT_TRUE(l.window);
  EXPECT_EQ(l.window->out_h, 6u);
  EXPECT_EQ(l.window->channels, 4u);
  EXPECT_EQ(parse_program(print_program(p, levels), "q.txt", levels), p);
  EXPECT_THROW(parse_program("tensor X shape=1,6,5,4 dtype=int8\nload tensor=X layout=\"((30:36), (36:1))\" "
                             "window=3,3,1\n",
                             "p.txt", levels),
               ProgramError);
}

Program windowed_load(std::vector<std::uint64_t> shape) {
  Program p;
  p.tensors.push_back({"X", {1, 6, 5, 4}, DType::kInt8});
  Load l;
  l.tensor = "X";
  l.layout = layout::parse_layout_or_throw("((" + std::to_string(shape[0]) + ":" + std::to_string(shape[1]) +
                                               "), (" + std::to_string(shape[1]) + ":1))",
                                           testing::mini());
  l.offset = {0, 0};
  l.shape = shape;
  l.window = window(3, 1, 1, 6, 5, 4);
  p.instrs.push_back(l);
  return p;
}

TEST(WindowCheck, DramReadsTheDistinctElementsAndTheBlockMustLieInTheMatrix) {
  const machine::MachineConfig m = testing::mini();
  const CheckedProgram ok = check_program(windowed_load({30, 36}), m);
  ASSERT_TRUE(ok.ok()) << ok.errors.front().message();
  EXPECT_EQ(ok.instrs[0].transfer->plan.dram_read_bytes, 120u);  // the tensor, once
  EXPECT_EQ(ok.instrs[0].transfer->bound.logical_elements(), 30u * 36);
  const CheckedProgram outside = check_program(windowed_load({31, 36}), m);
  ASSERT_FALSE(outside.ok());
  EXPECT_NE(outside.errors[0].message().find("window's matrix"), std::string::npos)
      << outside.errors[0].message();
}

TEST(WindowCheck, AHaloLoadCarriesTheDistinctElementsAndItsPatchesMustNotOverlapTheSlots) {
  const machine::MachineConfig m = testing::mini();
  Program p = windowed_load({30, 36});
  std::get<Load>(p.instrs[0]).halo = 30 * 36;  // right after the slots
  const CheckedProgram halo = check_program(p, m);
  ASSERT_TRUE(halo.ok()) << halo.errors.front().message();
  const Transfer& t = *halo.instrs[0].transfer;
  EXPECT_EQ(t.plan.dram_read_bytes, 120u);
  // Every one of mini's 32 PEs holds the whole block (no level is named): each receives the tensor,
  // once, where the im2col load delivers every slot.
  EXPECT_EQ(t.plan.levels.back().down_delivered_bytes, 32u * 120);
  EXPECT_EQ(
      check_program(windowed_load({30, 36}), m).instrs[0].transfer->plan.levels.back().down_delivered_bytes,
      32u * 30 * 36);
  EXPECT_EQ(t.window->halo_patch_bytes, std::optional<std::uint64_t>(120u));
  ASSERT_EQ(halo.instrs[0].writes.size(), 2u);
  EXPECT_EQ(halo.instrs[0].writes[1].lo, 30u * 36);
  EXPECT_EQ(halo.instrs[0].writes[1].hi, 30u * 36 + 120);
  std::get<Load>(p.instrs[0]).halo = 100;
  const CheckedProgram overlap = check_program(p, m);
  ASSERT_FALSE(overlap.ok());
  EXPECT_NE(overlap.errors[0].message().find("halo patches must not overlap"), std::string::npos)
      << overlap.errors[0].message();
}

TEST(WindowCheck, AHaloNeedsAWindowInProgramText) {
  const std::vector<std::string> levels{"L2B", "L1B", "MAB", "PE"};
  Program p = windowed_load({30, 36});
  std::get<Load>(p.instrs[0]).halo = 2048;
  const std::string text = print_program(p, levels);
  EXPECT_NE(text.find(" halo=2048"), std::string::npos) << text;
  EXPECT_EQ(parse_program(text, "h.txt", levels), p);
  try {
    parse_program("tensor X shape=30,36 dtype=int8\nload tensor=X layout=\"((30:36), (36:1))\" halo=64\n",
                  "h.txt", levels);
    ADD_FAILURE() << "a halo without a window was accepted";
  } catch (const ProgramError& e) {
    EXPECT_NE(std::string(e.what()).find("'halo' needs a 'window'"), std::string::npos) << e.what();
  }
}

TEST(WindowCheck, AMachineWithSeveralDramChannelsIsRefused) {
  machine::MachineConfig m = testing::mini();
  m.dram.per_level = 1;  // a channel per L1B
  const CheckedProgram c = check_program(windowed_load({30, 36}), m);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.errors[0].message().find("one DRAM channel"), std::string::npos) << c.errors[0].message();
}

}  // namespace
}  // namespace treesim::program
