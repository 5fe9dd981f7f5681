// The native host SpMV that bench/spmv_board.sh compares the simulator with: y = A·x (int8 values,
// int32 sums) in plain CSR over the largest METIS example graph (mdual.graph of libmetis-doc,
// 258,569 vertices, 1,026,264 nonzeros), its values drawn as `treesim run spmv` draws a pattern's.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "sim/sparse/matrix_file.h"

namespace treesim::sparse {
namespace {

constexpr const char* kGraph = "/usr/share/doc/libmetis-dev/examples/graphs/mdual.graph";

struct Csr {
  std::uint64_t rows = 0;
  std::vector<std::uint32_t> pos, crd;
  std::vector<std::int8_t> val;
  std::vector<std::int8_t> x;
};

Csr load() {
  const MatrixFile f = read_matrix_file(kGraph);
  Csr a;
  a.rows = f.coo.rows;
  a.pos.assign(a.rows + 1, 0);
  for (const Triple& t : f.coo.entries) ++a.pos[t.row + 1];
  for (std::uint64_t r = 0; r < a.rows; ++r) a.pos[r + 1] += a.pos[r];
  a.crd.resize(f.coo.entries.size());
  a.val.resize(f.coo.entries.size());
  std::vector<std::uint32_t> next(a.pos.begin(), a.pos.end() - 1);
  std::mt19937_64 gen(1);
  for (const Triple& t : f.coo.entries) {
    const std::uint32_t q = next[t.row]++;
    a.crd[q] = static_cast<std::uint32_t>(t.col);
    a.val[q] = static_cast<std::int8_t>(static_cast<int>(gen() % 254) - 127);
  }
  a.x.resize(f.coo.cols);
  for (auto& v : a.x) v = static_cast<std::int8_t>(static_cast<int>(gen() % 256) - 128);
  return a;
}

void BM_NativeSpmvMdual(benchmark::State& state) {
  Csr a;
  try {
    a = load();
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  std::vector<std::int32_t> y(a.rows);
  for (auto _ : state) {
    for (std::uint64_t r = 0; r < a.rows; ++r) {
      std::int32_t acc = 0;
      for (std::uint32_t q = a.pos[r]; q < a.pos[r + 1]; ++q) acc += a.val[q] * a.x[a.crd[q]];
      y[r] = acc;
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  const double nnz = static_cast<double>(state.iterations()) * static_cast<double>(a.val.size());
  state.counters["nnz/s"] = benchmark::Counter(nnz, benchmark::Counter::kIsRate);
}

BENCHMARK(BM_NativeSpmvMdual)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace treesim::sparse
