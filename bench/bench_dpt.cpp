// Bulk ternary decoding throughput: DPT next to the 2-bit (BCT) and base-3 baselines, each as the
// table-driven bulk decoder the simulator's functional path uses and as the bit-logic scalar decoder
// the table is built from. Input: 16 MiB of random valid codes. Bytes/s counts packed input.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "sim/numeric/ternary_codec.h"
#include "sim/numeric/ternary_lut.h"

namespace treesim::numeric {
namespace {

constexpr std::size_t kInputBytes = std::size_t{16} << 20;

const std::vector<std::uint8_t>& random_codes(TernaryCodec c) {
  static std::vector<std::uint8_t> buffers[4];
  std::vector<std::uint8_t>& b = buffers[static_cast<int>(c)];
  if (b.empty()) {
    std::mt19937 rng(42);
    b.resize(kInputBytes);
    for (auto& x : b) {
      std::uint8_t slots[5];
      do x = static_cast<std::uint8_t>(rng());
      while (!decode_chunk(c, x, slots));
    }
  }
  return b;
}

void report(benchmark::State& state, TernaryCodec c) {
  const auto bytes = static_cast<std::int64_t>(state.iterations() * kInputBytes);
  state.SetBytesProcessed(bytes);
  state.counters["trits/s"] =
      benchmark::Counter(static_cast<double>(bytes) * trits_per_byte(c), benchmark::Counter::kIsRate);
}

void BM_BulkDecode(benchmark::State& state, TernaryCodec c) {
  const auto& in = random_codes(c);
  const TernaryLut lut(c, true);
  std::vector<std::int8_t> out(in.size() * static_cast<std::size_t>(trits_per_byte(c)));
  for (auto _ : state) {
    lut.decode(in.data(), in.size(), out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  report(state, c);
}

void BM_ScalarDecode(benchmark::State& state, TernaryCodec c) {
  const auto& in = random_codes(c);
  const std::size_t per = static_cast<std::size_t>(trits_per_byte(c));
  std::vector<std::uint8_t> out(in.size() * per + 5);
  for (auto _ : state) {
    for (std::size_t i = 0; i < in.size(); ++i) decode_chunk(c, in[i], out.data() + per * i);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  report(state, c);
}

BENCHMARK_CAPTURE(BM_BulkDecode, dpt, TernaryCodec::kDpt)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BulkDecode, bct_2bit, TernaryCodec::kBct)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_BulkDecode, base3, TernaryCodec::kBase3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScalarDecode, dpt, TernaryCodec::kDpt)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScalarDecode, bct_2bit, TernaryCodec::kBct)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScalarDecode, base3, TernaryCodec::kBase3)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ScalarDecode, base243_prediv, TernaryCodec::kBase243PreDiv)
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace treesim::numeric
