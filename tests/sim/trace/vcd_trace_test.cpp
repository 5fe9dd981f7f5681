// The VCD writer shares an identifier only between waveforms it has found equal.
#include <gtest/gtest.h>

#include <sstream>

#include "sim/machine/machine_file.h"
#include "sim/trace/vcd_trace.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::trace {
namespace {

std::string var_id(const std::string& vcd, const std::string& scope, const std::string& name) {
  // The id of `name` declared right after `$scope module <scope>` (the scope's first variables).
  const std::size_t at = vcd.find("$scope module " + scope + " $end\n");
  if (at == std::string::npos) return "";
  std::istringstream in(vcd.substr(at));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line) && line.rfind("$var", 0) == 0) {
    std::istringstream w(line);
    std::string var, type, width, id, n;
    w >> var >> type >> width >> id >> n;
    if (n == name) return id;
  }
  return "";
}

TEST(VcdWriter, AUnitWithWorkOfItsOwnGetsItsOwnIdentifier) {
  const auto m = testing::config("mini");
  const topology::Topology topo(m);
  const int pe = static_cast<int>(m.levels.size()) - 1;
  TraceLog log;
  log.instructions().resize(2);
  log.instructions()[0].label = "mac#0:1x1x1";
  log.instructions()[1].label = "copy#1:8B";
  log.declare(pe, Resource::unit(timing::Unit::kMac));
  log.set_instruction(0);
  log.hold_level(pe, Resource::unit(timing::Unit::kMac), 0, 10, 64);  // every PE alike
  log.set_instruction(1);
  log.hold(topo.unit(pe, 5), Resource::unit(timing::Unit::kMac), 10, 12, 8);  // PE 5 alone
  log.end_cycle = 12;
  std::ostringstream out;
  write_vcd(out, log, topo, {});
  const std::string vcd = out.str();
  const std::string pe0 = var_id(vcd, "PE_0", "mac_busy");
  ASSERT_FALSE(pe0.empty());
  // PE 5 is PE_1 of MAB_1 (4 PEs per MAB); PE 6 (PE_2 of MAB_1) works like PE 0.
  std::size_t mab1 = vcd.find("$scope module MAB_1 $end");
  ASSERT_NE(mab1, std::string::npos);
  const std::string rest = vcd.substr(mab1);
  EXPECT_EQ(var_id(rest, "PE_2", "mac_busy"), pe0);
  EXPECT_NE(var_id(rest, "PE_1", "mac_busy"), pe0);
  EXPECT_NE(var_id(rest, "PE_1", "instr"), var_id(rest, "PE_2", "instr"));
}

TEST(VcdWriter, OverlappingInstructionsAreJoinedAndBackToBackOnesHandOver) {
  TraceLog log;
  log.instructions().resize(3);
  for (int i = 0; i < 3; ++i) log.instructions()[i].label = "i" + std::to_string(i);
  const std::vector<Hold> holds = {{0, 5, 1, 0}, {3, 8, 1, 1}, {8, 9, 1, 2}};
  const auto c = instruction_changes(holds, log);
  const std::vector<std::pair<std::uint64_t, std::string>> want = {
      {0, "i0"}, {3, "i0+i1"}, {5, "i1"}, {8, "i2"}, {9, "idle"}};
  EXPECT_EQ(c, want);
}

}  // namespace
}  // namespace treesim::trace
