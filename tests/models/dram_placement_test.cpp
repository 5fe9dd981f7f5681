// Placement by layout (models/dram_placement.h) and the DRAM map it gives (models/dram_map.h): each
// element in the channel of the unit its first transfer puts it in, a channel's elements packed in
// the tensor's order, and what no transfer places split in equal pieces.
#include <gtest/gtest.h>

#include "models/dram_placement.h"
#include "sim/machine/machine_file.h"
#include "tests/models/parse.h"
#include "tests/test_support.h"

namespace treesim::models {
namespace {

// Two units at the first level (G), each with its own DRAM channel, two PEs under each.
machine::MachineConfig two_channels(const std::string& placement) {
  return machine::load_machine_file(testing::write_temp_file("two.yaml", R"(
name: two
clock_ghz: 1.0
dram: { bytes: 1MiB, bytes_per_cycle: 16, latency_cycles: 10, per: G, placement: )" +
                                                                             placement + R"( }
levels:
  - { name: G,  fanout: 2, memory_bytes: 0,    down_bytes_per_cycle: 16, up_bytes_per_cycle: 16, latency_cycles: 2, reduce: true }
  - { name: PE, fanout: 2, memory_bytes: 4KiB, down_bytes_per_cycle: 8,  up_bytes_per_cycle: 8,  latency_cycles: 1, reduce: false }
pe:
  mac:         { int8_macs_per_cycle: 64, latency_cycles: 4 }
  dpt_decoder: { bytes_per_cycle: 4, latency_cycles: 2 }
  requant:     { values_per_cycle: 8, latency_cycles: 3 }
)"));
}

// A 4×8 int8 tensor X's columns 0-3 in G 0 and 4-7 in G 1.
const std::string kByColumns = "((4:2), (2_G, 2_PE, 2:1))";
// Its rows 0-1 in G 0 and 2-3 in G 1.
const std::string kByRows = "((2_G, 2:8), (2_PE, 4:2))";
// No G: a copy in every unit.
const std::string kEverywhere = "((4:8), (2_PE, 4:2))";

std::vector<TensorPlacement> place(const machine::MachineConfig& m, const std::string& text) {
  const program::Program p = testing::parse("tensor X shape=4,8\n" + text, m);
  const program::CheckedProgram checked = program::check_program(p, m);
  EXPECT_TRUE(checked.ok()) << (checked.ok() ? "" : checked.errors.front().message());
  return place_tensors(m, p, checked);
}

// Each element's channel, -1 where none is placed.
std::vector<int> channels(const TensorPlacement& t, std::uint64_t elements) {
  std::vector<int> out(elements, -1);
  for (const TensorPlacement::Run& r : t.placed)
    for (std::uint64_t e = r.begin; e < r.end; ++e) out[e] = static_cast<int>(r.channel);
  return out;
}

std::string load(const std::string& layout, const std::string& block = "") {
  return "load tensor=X layout=\"" + layout + "\" lm=0" + block + "\n";
}

TEST(DramPlacement, EachElementGoesToTheChannelOfItsUnit) {
  const std::vector<int> c = channels(place(two_channels("layout"), load(kByColumns))[0], 32);
  for (std::uint64_t e = 0; e < 32; ++e) EXPECT_EQ(c[e], e % 8 / 4) << e;
}

TEST(DramPlacement, RunsThatMeetInOneChannelJoin) {
  // Rows 0-1 go to G 0, rows 2-3 to G 1: two runs.
  const TensorPlacement t = place(two_channels("layout"), load(kByRows))[0];
  ASSERT_EQ(t.placed.size(), 2u);
  EXPECT_EQ(t.placed[0].end, 16u);
  EXPECT_EQ(t.placed[1].channel, 1u);
}

TEST(DramPlacement, TheFirstTransferOfAnElementPlacesIt) {
  const std::vector<int> c = channels(place(two_channels("layout"), load(kByRows) + load(kByColumns))[0], 32);
  for (std::uint64_t e = 0; e < 32; ++e) EXPECT_EQ(c[e], e / 16) << e;
}

TEST(DramPlacement, ACopyInEveryUnitPlacesNothingAndALaterTransferDoes) {
  EXPECT_TRUE(place(two_channels("layout"), load(kEverywhere))[0].placed.empty());
  const std::vector<int> c =
      channels(place(two_channels("layout"), load(kEverywhere) + load(kByColumns))[0], 32);
  for (std::uint64_t e = 0; e < 32; ++e) EXPECT_EQ(c[e], e % 8 / 4) << e;
}

TEST(DramPlacement, ElementsNoTransferReachesStayUnplaced) {
  // Rows 2-3 only, then rows 1-2 by rows: row 1 joins G 0 and row 2 stays where the first put it.
  const std::vector<int> c = channels(
      place(two_channels("layout"), load("((2:2), (2_G, 2_PE, 2:1))", " offset=2,0 shape=2,8") +
                                        load("((2_G, 1:8), (2_PE, 4:2))", " offset=1,0 shape=2,8"))[0],
      32);
  for (std::uint64_t e = 0; e < 8; ++e) EXPECT_EQ(c[e], -1) << e;
  for (std::uint64_t e = 8; e < 16; ++e) EXPECT_EQ(c[e], 0) << e;
  for (std::uint64_t e = 16; e < 32; ++e) EXPECT_EQ(c[e], e % 8 / 4) << e;
}

TEST(DramPlacement, SplitAndInterleavedMachinesPlaceNothing) {
  EXPECT_TRUE(place(two_channels("split"), load(kByColumns))[0].placed.empty());
  EXPECT_TRUE(place(two_channels("interleave"), load(kByColumns))[0].placed.empty());
}

TEST(DramMap, AChannelPacksItsElementsInTheTensorsOrder) {
  const machine::MachineConfig m = two_channels("layout");
  TensorPlacement x{32, 1, {}};
  for (std::uint64_t e = 0; e < 32; e += 4) x.placed.push_back({e, e + 4, e % 8 / 4});
  const DramMap map(m, {TensorPlacement{100, 1, {}}, x});
  const std::uint64_t base = map.base(1);
  EXPECT_EQ(base, 64u);  // the first tensor's 100 bytes in two 64-byte pieces
  const DramMap::Span first = map.at(1, 0, 32), second = map.at(1, 4, 28), third = map.at(1, 8, 24);
  EXPECT_EQ(first.channel, 0u);
  EXPECT_EQ(first.address, base);
  EXPECT_EQ(first.bytes, 4u);
  EXPECT_EQ(second.channel, 1u);
  EXPECT_EQ(second.address, base);
  EXPECT_EQ(third.channel, 0u);
  EXPECT_EQ(third.address, base + 4);
  EXPECT_EQ(map.at(1, 31, 1).address, base + 15);
  EXPECT_FALSE(map.whole(1));
  EXPECT_EQ(map.bytes_per_channel(), 128u);  // 16 bytes a channel, 64-byte aligned
}

TEST(DramMap, UnplacedElementsAndUnplacedTensorsFallInEqualPieces) {
  const machine::MachineConfig m = two_channels("layout");
  TensorPlacement x{256, 1, {{0, 1, 1}}};  // one element placed in channel 1, ahead of channel 1's half
  const DramMap map(m, {TensorPlacement{256, 1, {}}, x});
  EXPECT_EQ(map.at(0, 0, 256).channel, 0u);
  EXPECT_EQ(map.at(0, 0, 256).bytes, 128u);
  EXPECT_EQ(map.at(0, 128, 128).channel, 1u);
  EXPECT_EQ(map.at(0, 128, 128).address, 0u);
  EXPECT_EQ(map.at(1, 0, 256).channel, 1u);
  EXPECT_EQ(map.at(1, 1, 255).channel, 0u);
  EXPECT_EQ(map.at(1, 1, 255).bytes, 127u);
  EXPECT_EQ(map.at(1, 128, 128).address, map.base(1) + 1);
}

TEST(DramMap, OneChannelHoldsEveryTensorWholeInOrder) {
  machine::MachineConfig m = two_channels("layout");
  m.dram.per_level.reset();
  const DramMap map(m, {TensorPlacement{100, 1, {}}, TensorPlacement{32, 4, {}}});
  EXPECT_EQ(map.base(1), 128u);
  EXPECT_TRUE(map.whole(1));
  EXPECT_EQ(map.at(1, 8, 24).address, 136u);
  EXPECT_EQ(map.at(1, 8, 24).bytes, 24u);
}

}  // namespace
}  // namespace treesim::models
