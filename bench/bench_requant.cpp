// Requantization throughput (the fused output stage: MBQM, + zero point, clamp, saturating cast) over
// a 1024×64 block of int32 accumulators, per tensor and per output channel, in each rounding mode.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "sim/numeric/requant.h"

namespace treesim::numeric {
namespace {

constexpr std::size_t kRows = 1024, kChannels = 64;

void BM_Requantize(benchmark::State& state, Rounding rounding, bool per_channel) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::int32_t> acc_dist(-(1 << 20), 1 << 20);
  std::vector<std::int32_t> acc(kRows * kChannels), out(acc.size());
  for (auto& a : acc) a = acc_dist(rng);
  OutputStage s;
  s.out_dtype = DType::kInt8;
  s.out_zero_point = -5;
  s.act_min = -128;
  s.act_max = 127;
  s.rounding = rounding;
  s.multipliers.clear();
  for (std::size_t c = 0; c < (per_channel ? kChannels : 1); ++c)
    s.multipliers.push_back(quantize_multiplier(0.0005 + 0.0001 * static_cast<double>(c), rounding));
  validate(s, kChannels);
  for (auto _ : state) {
    requantize_block(acc.data(), kRows, kChannels, s, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  const double values = static_cast<double>(state.iterations()) * static_cast<double>(acc.size());
  state.SetItemsProcessed(static_cast<std::int64_t>(values));
  state.counters["values/s"] = benchmark::Counter(values, benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(BM_Requantize, double_per_tensor, Rounding::kDouble, false);
BENCHMARK_CAPTURE(BM_Requantize, double_per_channel, Rounding::kDouble, true);
BENCHMARK_CAPTURE(BM_Requantize, single_per_channel, Rounding::kSingle, true);
BENCHMARK_CAPTURE(BM_Requantize, double_upward_per_channel, Rounding::kDoubleUpward, true);

}  // namespace
}  // namespace treesim::numeric
