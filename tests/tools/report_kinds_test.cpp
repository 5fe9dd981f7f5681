// The report's per-kind figures (docs/reports.md §9.4): busy_cycles sums each instruction's longest
// stage, span_cycles is the union of the kind's [start, end) intervals. The figures are the ones
// docs/timing.md §8.5 derives by hand for gemm.prog.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

using json = nlohmann::json;

json exec_report(const std::string& program, const std::string& name) {
  const std::string report = temp_path(name + ".json");
  const CliResult r =
      run_treesim({"exec", program, "--machine", source_path("configs/mini.yaml"), "-q", "--report", report});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(read_text(report).empty() ? "{}" : read_text(report));
}

TEST(ReportKinds, GemmProgBusyAndSpanAreTheHandFigures) {
  const json j = exec_report(source_path("docs/examples/gemm.prog"), "gemm");
  const json& k = j["instructions"];
  // load A: longest stage 24 (L1B and MAB ports) over [0, 139); load B: 8 (PE port) over [12, 143).
  EXPECT_EQ(k["load"], (json{{"count", 2}, {"busy_cycles", 32}, {"span_cycles", 143}}));
  EXPECT_EQ(k["mac"], (json{{"count", 1}, {"busy_cycles", 3}, {"span_cycles", 7}}));       // [143, 150)
  EXPECT_EQ(k["requant"], (json{{"count", 1}, {"busy_cycles", 3}, {"span_cycles", 6}}));   // [150, 156)
  EXPECT_EQ(k["store"], (json{{"count", 1}, {"busy_cycles", 24}, {"span_cycles", 139}}));  // [156, 295)
  EXPECT_EQ(k["reduce"], (json{{"count", 0}, {"busy_cycles", 0}, {"span_cycles", 0}}));
  EXPECT_EQ(j["cycles"], 295);
}

TEST(ReportKinds, SpanLeavesOutTheGapsBetweenAKindsInstructions) {
  // The second mac rewrites the accumulators the requant reads, so it waits for the requant: the
  // two macs are in flight over [143, 150) and [156, 163), 14 cycles, not 163 − 143.
  const std::string program =
      write_temp_file("gap.prog",
                      "tensor A shape=96,8 dtype=int8\n"
                      "tensor B shape=8,8 dtype=int8\n"
                      "tensor C shape=96,8 dtype=int8\n"
                      "load tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 3:8), (8:1))\" lm=0\n"
                      "load tensor=B layout=\"((8:8), (8:1))\" lm=64\n"
                      "mac a=0 b=64 c=128 m=3 n=8 k=8\n"
                      "requant src=128 dst=256 rows=3 cols=8 multiplier=1073741824 shift=-10\n"
                      "mac a=0 b=64 c=128 m=3 n=8 k=8\n"
                      "store tensor=C layout=\"((2_L1B, 4_MAB, 4_PE, 3:8), (8:1))\" lm=256\n");
  const json j = exec_report(program, "gap");
  EXPECT_EQ(j["instructions"]["mac"], (json{{"count", 2}, {"busy_cycles", 6}, {"span_cycles", 14}}));
  EXPECT_EQ(j["units"]["mac"]["busy_cycles"], 6);
}

}  // namespace
}  // namespace treesim::testing
