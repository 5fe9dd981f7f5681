// The PE vector unit (pe.vector) on configs/mini.yaml: the `vector` instruction's
// isolated duration is its closed form (docs/timing.md), its values are sim/numeric/vector_math's
// (checked here against plain float arithmetic written out), and the report, roofline and energy
// count its lane-cycles. mini's unit: 8 values a cycle, latency 2; exp 4 lane-cycles a value and 6
// more cycles of latency; add 1 and 0 (a simple operation, not listed).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "models/simulation.h"
#include "sim/machine/machine_file.h"
#include "sim/report/report.h"
#include "tests/configs.h"
#include "tests/models/parse.h"
#include "tests/test_support.h"

namespace treesim::models {
namespace {

machine::MachineConfig mini_vector() { return testing::mini(); }

std::vector<std::uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

std::vector<float> floats_of(const std::vector<std::uint8_t>& b) {
  std::vector<float> out(b.size() / 4);
  std::memcpy(out.data(), b.data(), b.size());
  return out;
}

// X (4×16 float32, the same block in every PE) through `ops`, stored to Y; returns the run.
SimulationResult run_ops(const std::string& ops, std::uint64_t out_values, const std::vector<float>& x) {
  const machine::MachineConfig m = mini_vector();
  const std::string text = fmt::format(
      "tensor X shape=4,16 dtype=float32\n"
      "tensor Y shape={} dtype=float32\n"
      "load tensor=X layout=\"((4:16), (16:1))\"\n{}"
      "store tensor=Y layout=\"(({}:1))\" lm=256\n",
      out_values, ops, out_values);
  const program::Program p = testing::parse(text, m);
  return simulate(m, p, {{"X", bytes_of(x)}, {"Y", std::vector<std::uint8_t>(out_values * 4)}}, {});
}

std::vector<float> ramp() {
  std::vector<float> x(64);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = 0.25f * static_cast<float>(i) - 7.5f;
  return x;
}

TEST(VectorUnit, ExpTakesItsClosedForm) {
  // 64 values × 4 lane-cycles / 8 lanes = 32 busy cycles, after 2 + 6 cycles of latency.
  const auto r = run_ops(
      "vector op=exp a=0 dst=256 rows=4 cols=16\n"
      "vector op=add a=256 imm=1 dst=256 rows=4 cols=16\n",
      64, ramp());
  EXPECT_EQ(r.timings[1].end - r.timings[1].start, 2u + 6u + 32u);
  // A simple operation: 64 / 8 = 8 busy cycles after the unit's 2.
  EXPECT_EQ(r.timings[2].end - r.timings[2].start, 2u + 8u);
  const std::vector<float> y = floats_of(r.dram.at("Y"));
  const std::vector<float> x = ramp();
  for (std::size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(y[i], static_cast<float>(std::exp(static_cast<double>(x[i]))) + 1.0f) << i;
}

TEST(VectorUnit, RowReductionsTakeEachRowLeftToRight) {
  const auto r = run_ops(
      "vector op=row_max a=0 dst=256 rows=4 cols=16\n"
      "vector op=sub a=0 b=256 b_per=row dst=512 rows=4 cols=16\n"
      "vector op=row_sum a=512 dst=256 rows=4 cols=16\n",
      4, ramp());
  const std::vector<float> x = ramp(), y = floats_of(r.dram.at("Y"));
  for (std::size_t row = 0; row < 4; ++row) {
    float mx = x[row * 16];
    for (std::size_t c = 1; c < 16; ++c) mx = std::fmax(mx, x[row * 16 + c]);
    float s = 0;
    for (std::size_t c = 0; c < 16; ++c) s += x[row * 16 + c] - mx;
    EXPECT_EQ(y[row], s) << row;
  }
}

TEST(VectorUnit, ReportRooflineAndEnergyCountItsLaneCycles) {
  const machine::MachineConfig m = mini_vector();
  const auto r = run_ops("vector op=exp a=0 dst=256 rows=4 cols=16\n", 64, ramp());
  // 32 PEs × 64 values × 4 lane-cycles.
  EXPECT_EQ(r.stats.work[timing::Datapath::kVector], 32u * 64 * 4);
  const report::Report rep = report::make_report(m, r.stats);
  EXPECT_EQ(rep.roofline.bounds.at("vector"), 32u);  // 32·256 / (32 PEs · 8 lanes)
  ASSERT_EQ(rep.unit_work.size(), 1u);
  EXPECT_EQ(rep.unit_work[0].first, "vector_lane_cycles");
  ASSERT_TRUE(rep.energy_pj && rep.energy_pj->vector);
  EXPECT_DOUBLE_EQ(*rep.energy_pj->vector, 0.1 * 32 * 64 * 4);
  EXPECT_EQ(rep.instructions.size(), program::kind_names().size());
}

TEST(VectorUnit, AMachineWithoutOneListsNoVectorUnitOrKind) {
  machine::MachineConfig m = testing::mini();
  m.pe.vector.reset();
  const auto r = simulate(m, testing::parse("tensor A shape=64\nload tensor=A layout=\"((64:1))\"\n", m),
                          {{"A", std::vector<std::uint8_t>(64)}}, {});
  const report::Report rep = report::make_report(m, r.stats);
  EXPECT_EQ(rep.roofline.bounds.count("vector"), 0u);
  EXPECT_TRUE(rep.unit_work.empty());
  EXPECT_EQ(rep.instructions.size() + 1, program::kind_names().size());
  for (const auto& u : rep.units) EXPECT_NE(u.name, "vector");
}

}  // namespace
}  // namespace treesim::models
