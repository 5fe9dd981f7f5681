// `treesim layout convert --run`: conversions simulated on the tree (a `convert` instruction), for
// random pairs of layouts on mini, mncore-die and mncore-board: every destination slot holds its
// element, and the cycles are those of the cost model and never below a port's bytes over its rate.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <random>

#include "sim/machine/machine_file.h"
#include "tests/test_support.h"

namespace treesim {
namespace {

using testing::run_treesim;
using testing::source_path;

// A random layout of a rows×cols tensor: each level splits one axis by its fan-out, is left out (a
// copy in every unit) or pinned to unit 0; what is left of an axis goes to LM addresses (rows over
// columns, row-major, padded up); the parts of an axis in a random order (the address part first
// is cyclic).
std::string random_layout(const machine::MachineConfig& m, std::uint64_t rows, std::uint64_t cols,
                          std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  std::vector<std::string> axes[2];
  std::uint64_t split[2] = {1, 1};
  for (const machine::LevelConfig& l : m.levels) {
    const int what = pick(0, 5);
    if (what <= 3 && l.fanout > 1) {
      const int d = what % 2;
      axes[d].push_back(std::to_string(l.fanout) + "_" + l.name);
      split[d] *= l.fanout;
    } else if (what == 4) {
      axes[pick(0, 1)].push_back("1_" + l.name);
    }
  }
  const std::uint64_t a0 = (rows + split[0] - 1) / split[0], a1 = (cols + split[1] - 1) / split[1];
  axes[0].push_back(std::to_string(a0) + ":" + std::to_string(a1));
  axes[1].push_back(std::to_string(a1) + ":1");
  // The logical shape first: the parts may pad it.
  std::string text = "(" + std::to_string(rows) + "," + std::to_string(cols) + ")/(";
  for (int d = 0; d < 2; ++d) {
    std::shuffle(axes[d].begin(), axes[d].end(), rng);
    text += d ? ", (" : "(";
    for (std::size_t i = 0; i < axes[d].size(); ++i) text += (i ? ", " : "") + axes[d][i];
    text += ")";
  }
  return text + ")";
}

struct Converted {
  nlohmann::json plan;
  std::string from, to;
};

std::vector<Converted> random_conversions(const std::string& machine, unsigned pairs) {
  const std::string file = source_path("configs/" + machine + ".yaml");
  const machine::MachineConfig m = machine::load_machine_file(file);
  std::mt19937 rng(7);
  std::vector<Converted> out;
  for (unsigned i = 0; i < pairs; ++i) {
    const std::uint64_t rows = std::uniform_int_distribution<std::uint64_t>(1, 40)(rng);
    const std::uint64_t cols = std::uniform_int_distribution<std::uint64_t>(1, 40)(rng);
    const std::string dtype = i % 3 == 2 ? "int32" : "int8";
    Converted c{{}, random_layout(m, rows, cols, rng), random_layout(m, rows, cols, rng)};
    const auto r = run_treesim({"layout", "convert", c.from, c.to, "--machine", file, "--shape",
                                std::to_string(rows) + "," + std::to_string(cols), "--dtype", dtype, "--run",
                                "--seed", std::to_string(i), "--json"});
    EXPECT_EQ(r.exit_code, 0) << c.from << " → " << c.to << "\n" << r.err;
    if (r.exit_code != 0) continue;
    c.plan = nlohmann::json::parse(r.out);
    out.push_back(std::move(c));
  }
  return out;
}

class LayoutConvertRun : public ::testing::TestWithParam<std::string> {};

TEST_P(LayoutConvertRun, EveryDestinationSlotHoldsItsElement) {
  for (const Converted& c : random_conversions(GetParam(), 20)) {
    SCOPED_TRACE(c.from + " → " + c.to);
    EXPECT_TRUE(c.plan["run"]["verify"]["ok"].get<bool>());
    EXPECT_GT(c.plan["run"]["verify"]["slots"].get<std::uint64_t>(), 0u);
  }
}

TEST_P(LayoutConvertRun, CyclesAreTheCostModelsAndNoFewerThanABusiestPortNeeds) {
  const machine::MachineConfig m = machine::load_machine_file(source_path("configs/" + GetParam() + ".yaml"));
  unsigned moving = 0;
  for (const Converted& c : random_conversions(GetParam(), 20)) {
    SCOPED_TRACE(c.from + " → " + c.to);
    const std::uint64_t cycles = c.plan["run"]["cycles"].get<std::uint64_t>();
    EXPECT_EQ(cycles, c.plan["run"]["estimate_cycles"].get<std::uint64_t>());
    for (const machine::LevelConfig& l : m.levels) {
      const nlohmann::json& t = c.plan["levels"][l.name];
      const std::uint64_t up = t["busiest_up_port_bytes"], down = t["busiest_down_port_bytes"];
      EXPECT_GE(cycles, (up + l.up_bytes_per_cycle - 1) / l.up_bytes_per_cycle) << l.name;
      EXPECT_GE(cycles, (down + l.down_bytes_per_cycle - 1) / l.down_bytes_per_cycle) << l.name;
    }
    moving += c.plan["link_bytes"].get<std::uint64_t>() > 0;
  }
  EXPECT_GE(moving, 10u);  // most random pairs move data over the links
}

INSTANTIATE_TEST_SUITE_P(Machines, LayoutConvertRun, ::testing::Values("mini", "mncore-die", "mncore-board"),
                         [](const auto& info) {
                           std::string name = info.param;
                           name.erase(std::remove(name.begin(), name.end(), '-'), name.end());
                           return name;
                         });

TEST(LayoutConvertRunCli, TimingOnlyGivesTheSameCyclesAndChecksNothing) {
  const std::vector<std::string> args = {"layout",
                                         "convert",
                                         "((2_L1B, 4_MAB, 4_PE, 2:8), (8:1))",
                                         "((2_L1B, 32:2), (4_MAB, 2:1))",
                                         "--machine",
                                         source_path("configs/mini.yaml"),
                                         "--shape",
                                         "64,8",
                                         "--run",
                                         "--json"};
  std::vector<std::string> timing = args;
  timing.push_back("--timing-only");
  const auto full = run_treesim(args), fast = run_treesim(timing);
  ASSERT_EQ(full.exit_code, 0) << full.err;
  ASSERT_EQ(fast.exit_code, 0) << fast.err;
  const nlohmann::json a = nlohmann::json::parse(full.out), b = nlohmann::json::parse(fast.out);
  EXPECT_EQ(a["run"]["cycles"], b["run"]["cycles"]);
  EXPECT_TRUE(a["run"]["verify"]["ok"].get<bool>());
  EXPECT_FALSE(b["run"].contains("verify"));
}

TEST(LayoutConvertRunCli, TheTraceShowsTheConversionWithBothLayoutsAndItsPortHolds) {
  const std::string trace = testing::temp_path("convert.json");
  const auto r =
      run_treesim({"layout", "convert", "((4_PE, 3:8), (8:1))", "((3:8, 4_PE), (8:1))", "--machine",
                   source_path("configs/mini.yaml"), "--shape", "12,8", "--run", "--trace-json", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json t = nlohmann::json::parse(testing::read_text(trace));
  unsigned spans = 0, holds = 0;
  for (const nlohmann::json& e : t["traceEvents"]) {
    if (e.value("cat", "") != "convert") continue;
    if (e["args"].contains("from")) {
      ++spans;
      EXPECT_EQ(e["args"]["to"], "((3:8, 4_PE), (8:1))");
    } else {
      ++holds;
    }
  }
  EXPECT_EQ(spans, 1u);
  EXPECT_GT(holds, 0u);  // the ports it held
}

TEST(LayoutConvertRunCli, ARunNeedsAnIntegerTypeAndSaysSoInOneLine) {
  const auto r =
      run_treesim({"layout", "convert", "((4_PE, 3:8), (8:1))", "((3:8, 4_PE), (8:1))", "--machine",
                   source_path("configs/mini.yaml"), "--shape", "12,8", "--dtype", "float32", "--run"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--run: expected --dtype int8, uint8 or int32"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace treesim
