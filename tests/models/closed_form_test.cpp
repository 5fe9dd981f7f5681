// The timing closed forms of DESIGN.md §4 hold exactly on configs/mini.yaml:
//   mini: DRAM 64 B/c, latency 100; L2B 64 B/c, 8 c; L1B 32 B/c, 4 c; MAB 16 B/c, 2 c; PE 8 B/c, 1 c;
//   MAC 64/c + 4; DPT 4 B/c + 2; requant 8/c + 3. A load's path latency is 100+8+4+2+1 = 115.
// Each test simulates once (SystemC elaborates once per process; ctest runs each test alone).
#include <gtest/gtest.h>

#include "models/simulation.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "sim/program/program_text.h"
#include "sim/report/report.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::models {
namespace {

constexpr std::uint64_t kLoadLatency = 115;

using testing::mini;

SimulationResult run_on(const machine::MachineConfig& m, const std::string& text) {
  program::Program p = program::parse_program(text, "test", layout::level_names(m));
  std::map<std::string, std::vector<std::uint8_t>> inputs;
  for (const auto& t : p.tensors) inputs[t.name] = std::vector<std::uint8_t>(t.bytes(), 1);
  return simulate(m, p, inputs, {});
}

SimulationResult run(const std::string& text) { return run_on(mini(), text); }

std::uint64_t duration(const SimulationResult& r, std::size_t i) {
  return r.timings[i].end - r.timings[i].start;
}

TEST(ClosedForm, BlockRowLoadIsLatencyPlusBusiestPeStage) {
  // 12×8 int8 in row blocks of 3 on the 4 PEs of every MAB (L1B, MAB omitted: replicated). Every
  // parent port carries the whole 96 B; the MAB→PE port is slowest: ceil(96/8) = 12.
  auto r = run("tensor A shape=12,8\nload tensor=A layout=\"((4_PE, 3:8), (8:1))\"\n");
  EXPECT_EQ(r.stats.cycles, kLoadLatency + 12);
}

TEST(ClosedForm, UnicastLoadIsBoundByTheL1BAndMabStages) {
  // 2048 int8 spread over all 32 PEs, 64 B each. Busiest ports: board 2048 B (32 c), L2B 2048 B at
  // 32 B/c (64 c), L1B 1024 B at 16 B/c (64 c), MAB 256 B at 8 B/c (32 c); DRAM 2048/64 = 32 c.
  auto r = run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n");
  EXPECT_EQ(r.stats.cycles, kLoadLatency + 64);
}

TEST(ClosedForm, SmallUnicastLoadRoundsStagesUp) {
  // 128 B, 4 B per PE: L1B stage 128/32 = 4, MAB 64/16 = 4, PE 16/8 = 2, DRAM 2, L2B 2.
  auto r = run("tensor A shape=128\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 4:1))\"\n");
  EXPECT_EQ(r.stats.cycles, kLoadLatency + 4);
}

TEST(ClosedForm, BroadcastLoadOccupiesEachPortOnce) {
  // 16×8 copied to all 32 PEs: every port sends the 128 B once; PE stage 128/8 = 16.
  auto r = run("tensor A shape=16,8\nload tensor=A layout=\"((16:8), (8:1); B@[PE])\"\n");
  EXPECT_EQ(r.stats.cycles, kLoadLatency + 16);
  EXPECT_EQ(r.stats.work.levels[3].down_sent_bytes, 8u * 128);        // one send per MAB port
  EXPECT_EQ(r.stats.work.levels[3].down_delivered_bytes, 32u * 128);  // every PE receives it
}

TEST(ClosedForm, StoreIsLatencyPlusBusiestUpStage) {
  // Gathering the 2048 B back: L2B receives 2048 B from its L1Bs at 32 B/c = 64 c is the largest.
  auto r =
      run("tensor A shape=2048\ntensor B shape=2048\n"
          "load tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "store tensor=B layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n");
  EXPECT_EQ(duration(r, 1), kLoadLatency + 64);
  EXPECT_EQ(r.timings[1].start, r.timings[0].end);  // it reads what the load wrote
}

TEST(ClosedForm, MacIsLatencyPlusCeilMacsOverRate) {
  // 5×7×9 = 315 MACs per PE: 4 + ceil(315/64) = 9.
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "mac a=0 b=0 c=64 m=5 n=7 k=9\n");
  EXPECT_EQ(duration(r, 1), 4u + 5u);
  EXPECT_EQ(r.timings[1].start, r.timings[0].end);
}

TEST(ClosedForm, ExactMultipleMacHasNoRoundUp) {
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "mac a=0 b=0 c=64 m=4 n=4 k=8\n");  // 128 MACs: 4 + 2
  EXPECT_EQ(duration(r, 1), 6u);
}

TEST(ClosedForm, DptDecodeIsLatencyPlusCeilBytesOverRate) {
  // 10 packed bytes at 4 B/c: 2 + 3.
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "dpt_decode src=0 dst=64 bytes=10\n");
  EXPECT_EQ(duration(r, 1), 2u + 3u);
}

TEST(ClosedForm, BctDecodeRunsOnTheDptDecoderAtItsByteRate) {
  // 10 BCT bytes (2 rows of 5) at the DPT decoder's 4 B/c: 2 + 3, whatever the trits per byte.
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "dpt_decode src=0 dst=64 bytes=10 cols=5 codec=bct\n");
  EXPECT_EQ(duration(r, 1), 2u + 3u);
}

TEST(ClosedForm, Base3DecodeDefaultsToAQuarterOfTheDptDecodersRate) {
  // No pe.base3_decoder in mini: 4/4 = 1 B/c, latency 2 + 4. 10 bytes: 6 + 10.
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "dpt_decode src=0 dst=64 bytes=10 codec=base3\n");
  EXPECT_EQ(duration(r, 1), 6u + 10u);
}

TEST(ClosedForm, Base3DecodeIsItsFieldsLatencyPlusCeilBytesOverRate) {
  machine::MachineConfig m = mini();
  m.pe.base3_decoder = machine::DptDecoderConfig{3, 5};  // 10 bytes at 3 B/c: 5 + 4
  auto r = run_on(m,
                  "tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
                  "dpt_decode src=0 dst=64 bytes=10 codec=base3\n");
  EXPECT_EQ(duration(r, 1), 5u + 4u);
}

TEST(ClosedForm, TernaryMacIsItsFieldsLatencyPlusCeilMacsOverRate) {
  machine::MachineConfig m = mini();
  m.pe.ternary_mac = machine::TernaryMacConfig{100, 1};  // 5×7×9 = 315 MACs at 100/c: 1 + 4
  auto r = run_on(m,
                  "tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
                  "ternary_mac a=0 w=0 c=64 m=5 n=7 k=9\n");
  EXPECT_EQ(duration(r, 1), 1u + 4u);
}

TEST(ClosedForm, TernaryMacWithoutItsFieldRunsAtTheInt8Rate) {
  // 315 MACs at mini's int8 64/c: 4 + 5.
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "ternary_mac a=0 w=0 c=64 m=5 n=7 k=9\n");
  EXPECT_EQ(duration(r, 1), 4u + 5u);
}

TEST(ClosedForm, RequantIsLatencyPlusCeilValuesOverRate) {
  // 3×4 = 12 values at 8/c: 3 + 2.
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "requant src=0 dst=64 rows=3 cols=4 multiplier=1073741824 shift=0\n");
  EXPECT_EQ(duration(r, 1), 3u + 2u);
}

TEST(ClosedForm, DifferentUnitsOverlap) {
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "mac a=0 b=0 c=64 m=8 n=8 k=8\n"
          "dpt_decode src=0 dst=512 bytes=40\n");
  EXPECT_EQ(r.timings[1].start, r.timings[2].start);  // both only wait for the load
  EXPECT_EQ(r.stats.cycles, std::max(r.timings[1].end, r.timings[2].end));
}

TEST(ClosedForm, SameUnitSerializes) {
  // Two independent MACs (different outputs): the second waits for the MAC array's 8 busy cycles.
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "mac a=0 b=0 c=64 m=8 n=8 k=8\n"
          "mac a=0 b=0 c=512 m=8 n=8 k=8\n");
  EXPECT_EQ(r.timings[2].start, r.timings[1].start + 8);
  EXPECT_EQ(r.timings[2].end, r.timings[1].end + 8);
}

TEST(ClosedForm, LoadOverlapsComputeOnOtherData) {
  // The second load writes other LM bytes than the MAC reads, so they run at the same time.
  auto r =
      run("tensor A shape=2048\ntensor B shape=2048\n"
          "load tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "mac a=0 b=0 c=64 m=8 n=8 k=8\n"
          "load tensor=B layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\" lm=1024\n");
  EXPECT_LT(r.timings[2].start, r.timings[1].end);
  EXPECT_GT(r.timings[2].end, r.timings[1].start);
}

TEST(ClosedForm, LoadsSerializeOnTheirBottleneckPort) {
  // Two loads through the same ports: each port serves them one after the other, so the second
  // ends one bottleneck stage (64 cycles on the L1B and MAB ports) after the first.
  auto r =
      run("tensor A shape=2048\ntensor B shape=2048\n"
          "load tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "load tensor=B layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\" lm=1024\n");
  EXPECT_EQ(r.timings[0].end, kLoadLatency + 64);
  EXPECT_EQ(r.timings[1].end, r.timings[0].end + 64);
  EXPECT_EQ(r.stats.cycles, kLoadLatency + 64 + 64);
}

TEST(ClosedForm, StagesPipelineBehindEarlierTransfers) {
  // The second load's DRAM stage (32 cycles) starts when the first load's DRAM stage ends, not
  // when every port of the first load is free: it starts 32 cycles in.
  auto r =
      run("tensor A shape=2048\ntensor B shape=2048\n"
          "load tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "load tensor=B layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\" lm=1024\n");
  EXPECT_EQ(r.timings[1].start, 32u);
}

TEST(ClosedForm, ReadAfterWriteWaitsForTheWriter) {
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "mac a=0 b=0 c=64 m=8 n=8 k=8\n"
          "requant src=64 dst=1024 rows=8 cols=8 multiplier=1073741824 shift=0\n");
  EXPECT_EQ(r.timings[2].start, r.timings[1].end);
}

// Two stores of 32×32 blocks of C (one row per PE): at 0,0 and at `second`.
SimulationResult two_block_stores(const std::string& c_shape, const std::string& second) {
  const std::string store =
      "store tensor=C layout=\"((2_L1B, 4_MAB, 4_PE, 1:32), (32:1))\" shape=32,32 offset=";
  return run("tensor A shape=2048\ntensor C shape=" + c_shape +
             "\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n" + store + "0,0\n" + store + second +
             "\n");
}

// A store writes the span of its block in the tensor: two blocks of whole rows do not overlap, so the
// second store waits only for the ports the first holds, not for the first to complete.
TEST(ClosedForm, StoresOfDisjointRowBlocksDoNotWaitForEachOther) {
  auto r = two_block_stores("64,32", "32,0");
  EXPECT_LT(r.timings[2].start, r.timings[1].end);
  EXPECT_LT(r.stats.cycles, r.timings[1].end + duration(r, 1));
}

// Blocks of columns side by side interleave in the tensor's bytes: their spans overlap, and the
// second store waits for the first.
TEST(ClosedForm, StoresOfInterleavedColumnBlocksWaitForEachOther) {
  auto r = two_block_stores("32,64", "0,32");
  EXPECT_EQ(r.timings[2].start, r.timings[1].end);
}

TEST(ClosedForm, CyclesAreNeverBelowTheRoofline) {
  auto r =
      run("tensor A shape=2048\ntensor B shape=16,8\n"
          "load tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "load tensor=B layout=\"((16:8), (8:1); B@[PE])\" lm=2048\n"
          "mac a=0 b=2048 c=4096 m=8 n=8 k=8\n"
          "requant src=4096 dst=8192 rows=8 cols=8 multiplier=1073741824 shift=0\n"
          "reduce level=L1B src=4096 dst=12288 count=64\n");
  report::Roofline bound = report::roofline(mini(), r.stats);
  EXPECT_GE(r.stats.cycles, bound.cycles);
  EXPECT_FALSE(bound.resource.empty());
}

TEST(ClosedForm, ReduceChargesEveryReceivedByteOnTheUpPorts) {
  // Reduce at L1B of 16 int32 (64 B) per PE. MAB (reduce: false) forwards its 4 PEs' blocks: a
  // MAB port receives 4×64 = 256 B (256/8 = 32 c); the L1B receives 4 MABs × 4 blocks = 1024 B
  // (1024/16 = 64 c), sums, and sends one block down (64/16 = 4, 64/8 = 8).
  // Latency: up and down through the MAB and PE links: 2 × (2 + 1) = 6.
  auto r =
      run("tensor A shape=2048\nload tensor=A layout=\"((2_L1B, 4_MAB, 4_PE, 64:1))\"\n"
          "reduce level=L1B src=0 dst=64 count=16\n");
  EXPECT_EQ(duration(r, 1), 6u + 64u);
  const auto& pe = r.stats.work.levels[3];
  const auto& mab = r.stats.work.levels[2];
  EXPECT_EQ(pe.up_sent_bytes - 0, 32u * 64);  // every PE sends its block
  EXPECT_EQ(mab.up_sent_bytes, 8u * 4 * 64);  // every MAB forwards 4 blocks
}

}  // namespace
}  // namespace treesim::models
