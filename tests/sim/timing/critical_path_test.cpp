#include "sim/timing/critical_path.h"

#include <gtest/gtest.h>

#include <random>

namespace treesim::timing {
namespace critical_path_test {

PathInstr instr(const char* kind, std::uint64_t ready, std::uint64_t start, std::uint64_t end,
                const char* resource, std::optional<std::size_t> waits_for = std::nullopt,
                std::optional<std::size_t> held_by = std::nullopt) {
  PathInstr p;
  p.kind = kind, p.label = kind;
  p.ready = ready, p.start = start, p.end = end;
  p.resource = resource;
  p.waits_for = waits_for, p.held_by = held_by;
  return p;
}

TEST(CriticalPath, AChainOfDataDependencesIsThePathAndTheTailAfterTheLastMacIsNamed) {
  // load → mac → store, each reading the one before's result; a second load off the path.
  const std::vector<PathInstr> run{instr("load", 0, 0, 10, "L2B.down"), instr("load", 0, 0, 4, "L1B.down"),
                                   instr("mac", 10, 10, 30, "mac", 0),
                                   instr("store", 30, 30, 40, "L2B.up", 2)};
  const CriticalPath p = critical_path(run);
  ASSERT_EQ(p.stretches.size(), 3u);
  EXPECT_EQ(p.stretches[0].instr, 0u);
  EXPECT_EQ(p.stretches[2].instr, 3u);
  EXPECT_EQ(p.cycles, 40u);
  EXPECT_EQ(p.by_resource,
            (std::map<std::string, std::uint64_t>{{"L2B.down", 10}, {"mac", 20}, {"L2B.up", 10}}));
  EXPECT_EQ(p.after_last_mac, 10u);
  EXPECT_EQ(path_summary(p), "50% mac, 25% L2B.down, 25% L2B.up; 25% after the last MAC (store)");
}

TEST(CriticalPath, AResourceWaitLeadsToTheInstructionThatHeldTheResource) {
  // The second load's data were ready at 0, but the port was held by the first until 12.
  const std::vector<PathInstr> run{instr("load", 0, 0, 14, "L2B.down"), instr("mac", 0, 0, 3, "mac"),
                                   instr("load", 0, 12, 26, "L2B.down", std::nullopt, 0)};
  const CriticalPath p = critical_path(run);
  ASSERT_EQ(p.stretches.size(), 2u);
  EXPECT_EQ(p.stretches[0].instr, 0u);
  EXPECT_EQ(p.stretches[0].to, 12u);
  EXPECT_EQ(p.by_resource.at("L2B.down"), 26u);
  EXPECT_EQ(p.after_last_mac, 23u);
}

TEST(CriticalPath, AGapNoInstructionCoversIsCountedAsIssue) {
  // The requant starts 5 cycles after the copy before it ends, and needs nothing from it.
  const std::vector<PathInstr> run{instr("copy", 0, 0, 3, "copy"), instr("requant", 0, 8, 10, "requant")};
  const CriticalPath p = critical_path(run);
  EXPECT_EQ(p.by_resource, (std::map<std::string, std::uint64_t>{{"copy", 3}, {"issue", 5}, {"requant", 2}}));
}

TEST(CriticalPath, TheStretchesOfAnyRunCoverItFromStartToEndInOrder) {
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<PathInstr> run;
    const std::size_t n = 1 + rng() % 30;
    for (std::size_t i = 0; i < n; ++i) {
      std::optional<std::size_t> w, h;
      std::uint64_t ready = 0, start;
      if (i > 0 && rng() % 2) w = rng() % i, ready = run[*w].end;
      start = ready + rng() % 4;
      if (i > 0 && start > ready && rng() % 2) h = rng() % i;
      run.push_back(
          instr(i % 3 ? "load" : "mac", ready, start, start + 1 + rng() % 9, i % 2 ? "a" : "b", w, h));
    }
    const CriticalPath p = critical_path(run);
    std::uint64_t at = 0, total = 0, end = 0;
    for (const PathInstr& in : run) end = std::max(end, in.end);
    for (const PathStretch& s : p.stretches) {
      EXPECT_EQ(s.from, at) << "trial " << trial;
      EXPECT_LT(s.from, s.to);
      at = s.to;
    }
    for (const auto& [r, c] : p.by_resource) total += c;
    EXPECT_EQ(at, end) << "trial " << trial;
    EXPECT_EQ(total, end);
    EXPECT_EQ(p.cycles, end);
  }
}

}  // namespace critical_path_test
}  // namespace treesim::timing
