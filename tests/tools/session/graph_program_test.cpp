// Kernel problems joined into one program: a quantized add whose output a GEMM reads through a view,
// run on the simulator against host arithmetic.
#include "kernels/graph/graph_program.h"

#include <gtest/gtest.h>

#include <cstring>

#include "kernels/add/add.h"
#include "kernels/qgemm/qgemm_kernel.h"
#include "models/simulation.h"
#include "tools/session/run_problem.h"
#include "tests/configs.h"

namespace treesim::graph {
namespace graph_program_test {

numeric::AddStage add_stage(core::DType out) {
  numeric::AddStage s;
  s.a_scale = 0.5f, s.b_scale = 0.25f;
  s.out_dtype = out;
  s.act_min = out == core::DType::kUInt8 ? 0 : -128, s.act_max = s.act_min + 255;
  return s;
}

std::vector<std::uint8_t> bytes(std::size_t n, int seed) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>((i * 37 + seed * 11) % 256);
  return v;
}

// Unit 0: y = a + b (12 int8 codes); unit 1: c = y (as 3×4) · w (4×2), int32 accumulators.
std::vector<ProgramUnit> add_then_gemm(const machine::MachineConfig& m, core::DType add_out) {
  std::vector<ProgramUnit> units(2);
  units[0].name = "add";
  units[0].problem = std::move(kernels::add_problem(add_stage(add_out), bytes(12, 1), bytes(12, 2)).value());
  units[0].output = "Y";
  units[0].output_name = "y";
  kernels::QgemmProblem p;
  p.m = 3, p.k = 4, p.n = 2;
  p.int32_out = true;
  kernels::QgemmOperands ops;
  ops.a = std::vector<std::uint8_t>(12, 0);  // made by unit 0
  ops.b = bytes(8, 3);
  units[1].name = "gemm";
  units[1].problem = std::make_unique<kernels::QgemmInstance>(p, std::move(ops), "", "", "");
  units[1].linked = {{"A", "y"}};
  units[1].output = "C";
  units[1].output_name = "c";
  for (ProgramUnit& u : units) u.plan = u.problem->plan(m).value();
  return units;
}

TEST(GraphProgram, AReaderSeesTheMakersTensorThroughItsOwnShapeAndGetsItsValues) {
  const machine::MachineConfig m = testing::mini();
  GraphProgram g(add_then_gemm(m, core::DType::kInt8));
  kernels::Result<kernels::Plan> plan = g.plan(m);
  ASSERT_TRUE(plan.ok());
  kernels::Result<program::Program> prog = g.program(plan.value(), m);
  ASSERT_TRUE(prog.ok()) << prog.errors().front().message();
  std::vector<std::string> names;
  for (const program::TensorDecl& t : prog->tensors) names.push_back(t.name);
  EXPECT_EQ(names, (std::vector<std::string>{"u0.A", "u0.B", "y", "u1.B", "c"}));
  bool viewed = false;
  for (const program::Instr& i : prog->instrs)
    if (const auto* l = std::get_if<program::Load>(&i); l && l->tensor == "y") {
      EXPECT_EQ(l->view, (std::vector<std::uint64_t>{3, 4}));
      viewed = true;
    }
  EXPECT_TRUE(viewed);

  models::Simulation sim(m);
  session::RunOptions options;
  options.kernel = "graph";
  kernels::Result<session::Outcome> out = session::run_problem(g, plan.value(), sim, options);
  ASSERT_TRUE(out.ok()) << out.errors().front().message();
  const std::vector<std::uint8_t> y =
      kernels::reference_add(add_stage(core::DType::kInt8), bytes(12, 1), bytes(12, 2));
  EXPECT_EQ(out->dram.at("y"), y);
  const std::vector<std::uint8_t> w = bytes(8, 3);
  std::vector<std::int32_t> c(6);
  std::memcpy(c.data(), out->dram.at("c").data(), 24);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) {
      std::int32_t sum = 0;
      for (int k = 0; k < 4; ++k)
        sum += static_cast<std::int8_t>(y[i * 4 + k]) * static_cast<std::int8_t>(w[k * 2 + j]);
      EXPECT_EQ(c[i * 2 + j], sum) << i << "," << j;
    }
  EXPECT_EQ(out->stats.phases.count("add"), 1u);
  EXPECT_EQ(out->stats.phases.count("gemm"), 1u);
}

TEST(GraphProgram, AReaderOfAnotherElementTypeIsRefusedNamingIt) {
  const machine::MachineConfig m = testing::mini();
  GraphProgram g(add_then_gemm(m, core::DType::kUInt8));
  kernels::Result<program::Program> prog = g.program(g.plan(m).value(), m);
  ASSERT_FALSE(prog.ok());
  EXPECT_EQ(prog.errors().front().message(), "gemm: reads 'y' (12) uint8 as (3,4) int8");
}

}  // namespace graph_program_test
}  // namespace treesim::graph
