// The machine's modules own their behaviour: DRAM behind a TLM socket that any LT target can take,
// link ports per unit, PE units with per-PE work, and a Simulation that runs programs in turn.
// Each test elaborates once (ctest runs each test in its own process).
#include <gtest/gtest.h>

#include <tuple>

#include <tlm_utils/simple_target_socket.h>
#include <fstream>
#include <map>
#include <sstream>

#include "models/clock.h"
#include "models/simulation.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "sim/program/program_text.h"
#include "tests/configs.h"
#include "tests/lt_memory.h"
#include "tests/models/parse.h"
#include "tests/test_support.h"

namespace treesim::models {
namespace {

using testing::config;

using testing::parse;

// The worked program of docs/isa.md (loads, a MAC, a requant and a store) on `m`.
program::Program worked_gemm(const machine::MachineConfig& m) {
  std::ifstream f(testing::source_path("docs/examples/gemm.prog"));
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  return parse(text, m);
}

// Every input of the worked program (every tensor but C) filled with 7.
DramImage sevens(const program::Program& p) {
  DramImage inputs;
  for (const auto& t : p.tensors)
    if (t.name != "C") inputs[t.name] = std::vector<std::uint8_t>(t.bytes(), 7);
  return inputs;
}

// A simulation whose DRAM socket the test binds to its own target.
SimulationConfig unbound() {
  SimulationConfig c;
  c.bind_dram = false;
  return c;
}

using OtherDram = testing::LtMemory;

TEST(Modules, ABoundTargetsLatencyChangesALoadAsTheClosedFormSays) {
  // mini: the load of 12×8 in row blocks of 3 is bound by the MAB→PE ports (96 B at 8 B/c = 12);
  // its path latency is DRAM's + 8 + 4 + 2 + 1. With a DRAM of latency 300 the closed form says
  // 300 + 15 + 12.
  const auto m = config("mini");
  Simulation sim(m, unbound());
  OtherDram other("other", 300, 64);
  sim.board().dram_socket.bind(other.socket);
  auto p = parse("tensor A shape=12,8\nload tensor=A layout=\"((4_PE, 3:8), (8:1))\"\n", m);
  SimulationResult r = sim.run(p, {{"A", std::vector<std::uint8_t>(96, 1)}});
  EXPECT_EQ(r.stats.cycles, 300u + 15u + 12u);
}

TEST(Modules, ATargetWithoutDmiMovesTheBytesThroughBTransport) {
  // Without DMI the sequencer reads and writes every row of a block through b_transport; the data
  // arrive all the same (block loads and stores of a 12×8 tensor, 4×8 blocks at row offsets).
  const auto m = config("mini");
  Simulation sim(m, unbound());
  OtherDram other("other", 50, 64, OtherDram::Wait::kNone, /*dmi=*/false);
  sim.board().dram_socket.bind(other.socket);
  auto p = parse(
      "tensor A shape=12,8\ntensor B shape=12,8\n"
      "load tensor=A layout=\"((4_PE, 1:8), (8:1))\" offset=4,0 shape=4,8\n"
      "store tensor=B layout=\"((4_PE, 1:8), (8:1))\" offset=8,0 shape=4,8\n",
      m);
  std::vector<std::uint8_t> a(96);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i);
  SimulationResult r = sim.run(p, {{"A", a}});
  const auto& b = r.dram.at("B");
  for (std::size_t i = 0; i < 32; ++i) EXPECT_EQ(b[64 + i], a[32 + i]) << i;
  for (std::size_t i = 0; i < 64; ++i) EXPECT_EQ(b[i], 0) << i;
}

TEST(Modules, ASlowTargetMakesALoadDramBound) {
  // The same load from a DRAM of 1 B/c: its stage (96 cycles) now dominates: 300 + 15 + 96.
  const auto m = config("mini");
  Simulation sim(m, unbound());
  OtherDram other("other", 300, 1);
  sim.board().dram_socket.bind(other.socket);
  auto p = parse("tensor A shape=12,8\nload tensor=A layout=\"((4_PE, 3:8), (8:1))\"\n", m);
  EXPECT_EQ(sim.run(p, {{"A", std::vector<std::uint8_t>(96, 1)}}).stats.cycles, 300u + 15u + 96u);
}

// The VCD identifiers of `signal` in the scope `scope` (a dotted path).
std::string vcd_id(const std::string& vcd, const std::string& scope, const std::string& signal) {
  std::istringstream in(vcd);
  std::vector<std::string> path;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string a, b, c, d, e;
    w >> a >> b >> c;
    if (a == "$scope") path.push_back(c);
    if (a == "$upscope") path.pop_back();
    if (a == "$var") {
      w >> d >> e;
      std::string here;
      for (const auto& s : path) here += (here.empty() ? "" : ".") + s;
      if (here == scope && e == signal) return d;
    }
  }
  return "";
}

TEST(Modules, ALoadOverHalfTheL2BsLeavesTheOtherHalfsPortsIdle) {
  // 1024×512 over 8 of the board's 16 L2Bs: the ports of L2B 8..15 (towards their L1Bs) idle.
  const auto m = config("mncore-board");
  Simulation sim(m);
  auto p = parse(
      "tensor A shape=1024,512\nload tensor=A layout=\"((8_L2B, 8_L1B, 16:8), (16_MAB, 8:1, 4_PE))\"\n", m);
  SimulationOptions o;
  o.vcd_path = testing::temp_path("half.vcd");
  o.vcd_filter.depth = 2;
  SimulationResult r = sim.run(p, {{"A", std::vector<std::uint8_t>(1024 * 512, 3)}}, o);
  const auto& ports = r.stats.ports[1].down;  // L1B links: one port per L2B unit
  ASSERT_EQ(ports.size(), 16u);
  for (std::size_t u = 0; u < 16; ++u) {
    if (u < 8) {
      EXPECT_GT(ports[u].busy_cycles, 0u) << u;
      EXPECT_EQ(ports[u].bytes, 1024u * 512 / 8) << u;
    } else {
      EXPECT_EQ(ports[u].busy_cycles, 0u) << u;
      EXPECT_EQ(ports[u].bytes, 0u) << u;
    }
  }
  std::ifstream f(o.vcd_path);
  std::string vcd((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const std::string busy = vcd_id(vcd, "board.L2B_3", "down_busy"),
                    idle = vcd_id(vcd, "board.L2B_11", "down_busy");
  ASSERT_FALSE(busy.empty());
  ASSERT_FALSE(idle.empty());
  EXPECT_NE(busy, idle);
  EXPECT_NE(vcd.find("\n1" + busy + "\n"), std::string::npos);
  EXPECT_EQ(vcd.find("\n1" + idle + "\n"), std::string::npos);
}

// A collective's result (reduce, gather) goes from each subtree's unit down to its first PE, and a
// broadcast's or scatter's source up from there: only the ports on that path carry bytes or are
// busy, so each level's ports add up to its sent bytes (timing.md §8.4).
TEST(Modules, ACollectivesFirstPePathUsesOnlyItsPorts) {
  const auto m = config("mncore-die");  // 4 L2B × 8 L1B × 16 MAB × 4 PE
  // The LM is written first by a load into every PE; its traffic is taken off (run alone).
  const std::string load = "tensor Z shape=8192 dtype=int8\nload tensor=Z layout=\"((8192:1))\" lm=0\n";
  SimulationOptions o;
  o.functional = false;
  Simulation sim(m);
  auto run = [&](const std::string& text) { return sim.run(parse(text, m), {{"Z", {}}}, o).stats; };
  const report::RunStats base = run(load);
  // (instruction, whether its first-PE path is the down direction)
  for (const auto& [op, path_down] : {std::pair{"reduce level=L1B src=0 dst=0 count=16", true},
                                      {"gather level=L1B src=0 dst=64 bytes=16", true},
                                      {"broadcast level=L1B src=0 dst=64 bytes=16", false},
                                      {"scatter level=L1B src=0 dst=4096 bytes=16", false}}) {
    SCOPED_TRACE(op);
    const report::RunStats r = run(load + op + "\n");
    for (std::size_t l = 0; l < m.levels.size(); ++l) {
      SCOPED_TRACE(m.levels[l].name);
      const auto &t = r.work.levels[l], &t0 = base.work.levels[l];
      for (const auto& [ports, ports0, sent, path] :
           {std::tuple{&r.ports[l].down, &base.ports[l].down, t.down_sent_bytes - t0.down_sent_bytes,
                       path_down},
            std::tuple{&r.ports[l].up, &base.ports[l].up, t.up_sent_bytes - t0.up_sent_bytes, !path_down}}) {
        std::uint64_t bytes = 0, used = 0;
        for (std::size_t p = 0; p < ports->size(); ++p) {
          bytes += (*ports)[p].bytes - (*ports0)[p].bytes;
          used += (*ports)[p].bytes > (*ports0)[p].bytes;
        }
        EXPECT_EQ(bytes, sent);
        // The PE level's ports (one per MAB, 512): the path takes one MAB's of each L1B subtree.
        if (l == 3) {
          EXPECT_EQ(used, path ? 32u : 512u);
        }
      }
    }
  }
}

TEST(Modules, AnInstructionWithUnequalPerPeWorkTakesTheSlowestPesTime) {
  // mini's MAC: 64 MACs/cycle, latency 4. PE 5 has 640 MACs, the others 64: all start together,
  // the step ends 4 + 10 cycles after the start.
  const auto m = config("mini");
  Simulation sim(m);
  std::vector<std::uint64_t> work(m.pe_count(), 64);
  work[5] = 640;
  PeArray& pes = sim.board().pe_array();
  const StepTime t = pes.step_each(timing::Unit::kMac, work, 7, timing::Path::kDefault);
  EXPECT_EQ(t.start, 7u);
  EXPECT_EQ(t.end, 7u + 4u + 10u);
  EXPECT_EQ(pes.unit(timing::Unit::kMac).busy_cycles(5), 10u);
  EXPECT_EQ(pes.unit(timing::Unit::kMac).busy_cycles(4), 1u);
  // The next step waits for the busiest PE's unit.
  EXPECT_EQ(pes.step(timing::Unit::kMac, 64, 0, timing::Path::kDefault).start, 17u);
}

TEST(Modules, TheSequencerSyncsAsTheQuantumSaysAndNoCycleChanges) {
  // The worked GEMM of docs/isa.md on mini, with the default quantum and with one cycle: the
  // sequencer synchronises with SystemC time more often, and the run is the same.
  const auto m = config("mini");
  const program::Program p = worked_gemm(m);
  const DramImage inputs = sevens(p);
  Simulation sim(m);
  const SimulationResult coarse = sim.run(p, inputs);
  sim.board().sequencer().set_quantum_cycles(1);
  const SimulationResult fine = sim.run(p, inputs);
  EXPECT_GT(fine.syncs, coarse.syncs);
  EXPECT_EQ(fine.stats.cycles, coarse.stats.cycles);
  EXPECT_EQ(fine.dram, coarse.dram);
  for (std::size_t i = 0; i < p.instrs.size(); ++i)
    EXPECT_EQ(fine.timings[i].end, coarse.timings[i].end) << i;
}

TEST(Modules, OneSimulationRunsTwoProgramsWithSeparateCounters) {
  const auto m = config("mini");
  Simulation sim(m);
  auto first = parse("tensor A shape=12,8\nload tensor=A layout=\"((4_PE, 3:8), (8:1))\"\n", m);
  auto second = parse(
      "tensor B shape=64\ntensor C shape=64\nload tensor=B layout=\"((2_L1B, 4_MAB, 4_PE, 2:1))\"\n"
      "copy src=0 dst=16 bytes=2\nstore tensor=C layout=\"((2_L1B, 4_MAB, 4_PE, 2:1))\" lm=16\n",
      m);
  SimulationResult a = sim.run(first, {{"A", std::vector<std::uint8_t>(96, 1)}});
  std::vector<std::uint8_t> b(64);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(i);
  SimulationResult r2 = sim.run(second, {{"B", b}});
  EXPECT_EQ(a.stats.cycles, 127u);
  EXPECT_EQ(a.stats.work.dram_read_bytes, 96u);
  EXPECT_EQ(r2.stats.work.dram_read_bytes, 64u);  // its own, not 96 + 64
  EXPECT_EQ(r2.stats.work.dram_write_bytes, 64u);
  EXPECT_EQ(r2.stats.instructions.at("load").count, 1u);
  EXPECT_EQ(r2.dram.at("C"), b);  // copied through the LMs
  // The second run's cycles count from its own start and equal the closed forms: the load's
  // slowest stage is the L2B's port to its L1Bs (64 B at 32 B/c): 115 + 2.
  EXPECT_EQ(r2.timings.front().start, 0u);
  EXPECT_EQ(r2.timings[0].end, 117u);
  EXPECT_EQ(r2.stats.cycles, r2.timings.back().end);
}

}  // namespace
}  // namespace treesim::models

namespace treesim::models {
namespace {

TEST(Modules, TimingOnlyGivesTheSameCyclesAndCountersAsAFullRun) {
  // The worked program of docs/isa.md: loads, a MAC, a requant and a store on mini.
  const auto m = config("mini");
  const program::Program p = worked_gemm(m);
  const DramImage inputs = sevens(p);
  Simulation sim(m);
  SimulationResult full = sim.run(p, inputs);
  SimulationOptions timing_only;
  timing_only.functional = false;
  SimulationResult timing = sim.run(p, inputs, timing_only);
  EXPECT_FALSE(timing.stats.functional);
  EXPECT_TRUE(timing.dram.empty());
  EXPECT_EQ(timing.stats.cycles, full.stats.cycles);
  EXPECT_EQ(timing.stats.work.dram_read_bytes, full.stats.work.dram_read_bytes);
  EXPECT_EQ(timing.stats.work.dram_write_bytes, full.stats.work.dram_write_bytes);
  EXPECT_EQ(timing.stats.resource_busy_cycles, full.stats.resource_busy_cycles);
  EXPECT_EQ(timing.stats.work.macs, full.stats.work.macs);
  for (std::size_t l = 0; l < m.levels.size(); ++l) {
    EXPECT_EQ(timing.stats.work.levels[l].down_sent_bytes, full.stats.work.levels[l].down_sent_bytes);
    EXPECT_EQ(timing.stats.work.levels[l].up_sent_bytes, full.stats.work.levels[l].up_sent_bytes);
  }
  for (std::size_t i = 0; i < p.instrs.size(); ++i) {
    EXPECT_EQ(timing.timings[i].start, full.timings[i].start) << i;
    EXPECT_EQ(timing.timings[i].end, full.timings[i].end) << i;
  }
}

}  // namespace
}  // namespace treesim::models
