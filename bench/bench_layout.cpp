// Layout mapping speed: locating every element of a 4096×4096 int8 tensor spread over the
// 8,192-PE board (replica 0 of each), and the loader's slot walk over the same placement.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"
#include "sim/layout/slots.h"
#include "sim/machine/machine_file.h"

namespace {

using treesim::layout::BoundLayout;

// 4096 rows over 16 L2B × 8 L1B (32 rows each), 4096 columns over 16 MAB × 4 PE (64 each):
// 2048 addresses (2 KiB int8) per PE.
const BoundLayout& board_layout() {
  static const BoundLayout b = [] {
    auto m =
        treesim::machine::load_machine_file(std::string(TREESIM_SOURCE_DIR) + "/configs/mncore-board.yaml");
    auto l = treesim::layout::parse_layout_or_throw("((16_L2B, 8_L1B, 32:64), (16_MAB, 4_PE, 64:1))", m);
    return treesim::layout::bind_or_throw(l, {4096, 4096}, m, 1);
  }();
  return b;
}

void BM_LocateEveryElement(benchmark::State& state) {
  const BoundLayout& b = board_layout();
  treesim::layout::Location loc;
  std::uint64_t checksum = 0;
  for (auto _ : state) {
    std::uint64_t index[2];
    for (index[0] = 0; index[0] < 4096; ++index[0])
      for (index[1] = 0; index[1] < 4096; ++index[1]) {
        b.locate_into(index, loc);
        checksum += loc.addr + loc.units[3];
      }
    benchmark::DoNotOptimize(checksum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 4096 * 4096);
}
BENCHMARK(BM_LocateEveryElement)->Unit(benchmark::kMillisecond);

void BM_ForEachSlot(benchmark::State& state) {
  const BoundLayout& b = board_layout();
  for (auto _ : state) {
    std::uint64_t checksum = 0;
    treesim::layout::for_each_slot(b, [&](std::uint64_t pe, std::uint64_t off, std::int64_t e) {
      checksum += pe ^ off ^ static_cast<std::uint64_t>(e);
    });
    benchmark::DoNotOptimize(checksum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 4096 * 4096);
}
BENCHMARK(BM_ForEachSlot)->Unit(benchmark::kMillisecond);

}  // namespace
