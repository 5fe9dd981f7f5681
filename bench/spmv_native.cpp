// The native baseline of the sparse wall-time ratios (bench/spmv_over_native.py): one process that
// reads a matrix file (with treesim's reader: .mtx, Harwell-Boeing or METIS), sums its duplicates,
// builds plain CSR with int8 values drawn as `treesim run spmv` draws a pattern's, and runs one
// y = A·x with int32 sums. It prints the checksum of y (so that nothing is optimised away) and the
// seconds of each step.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <vector>

#include "sim/sparse/matrix_file.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: spmv_native MATRIX_FILE\n");
    return 2;
  }
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  try {
    const treesim::sparse::Coo a =
        treesim::sparse::sum_duplicates(treesim::sparse::read_matrix_file(argv[1]).coo);
    const auto t1 = Clock::now();
    std::vector<std::uint32_t> pos(a.rows + 1, 0), crd(a.entries.size());
    std::vector<std::int8_t> val(a.entries.size()), x(a.cols);
    std::mt19937_64 gen(1);
    for (const auto& t : a.entries) ++pos[t.row + 1];
    for (std::uint64_t r = 0; r < a.rows; ++r) pos[r + 1] += pos[r];
    for (std::size_t q = 0; q < a.entries.size(); ++q) {  // row-major already
      crd[q] = static_cast<std::uint32_t>(a.entries[q].col);
      val[q] = static_cast<std::int8_t>(static_cast<int>(gen() % 254) - 127);
    }
    for (auto& v : x) v = static_cast<std::int8_t>(static_cast<int>(gen() % 256) - 128);
    const auto t2 = Clock::now();
    std::vector<std::int32_t> y(a.rows);
    for (std::uint64_t r = 0; r < a.rows; ++r) {
      std::int32_t acc = 0;
      for (std::uint32_t q = pos[r]; q < pos[r + 1]; ++q) acc += val[q] * x[crd[q]];
      y[r] = acc;
    }
    const auto t3 = Clock::now();
    std::int64_t sum = 0;
    for (std::int32_t v : y) sum += v;
    const auto s = [](Clock::time_point a, Clock::time_point b) {
      return std::chrono::duration<double>(b - a).count();
    };
    std::printf("checksum %lld; read %.4f s, csr %.4f s, spmv %.6f s\n", static_cast<long long>(sum),
                s(t0, t1), s(t1, t2), s(t2, t3));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spmv_native: %s\n", e.what());
    return 1;
  }
  return 0;
}
