#include "sim/sparse/quantized.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/sparse/sparse_error.h"

namespace treesim::sparse {

QuantizedValues quantize_values(const std::vector<double>& values) {
  double max_abs = 0;
  for (double v : values) max_abs = std::max(max_abs, std::fabs(v));
  QuantizedValues q;
  q.scale = max_abs == 0 ? 1.0 : max_abs / 127.0;
  q.values.reserve(values.size());
  for (double v : values) {
    const double r = std::round(v / q.scale);  // std::round: halves away from zero
    q.values.push_back(static_cast<std::int8_t>(std::clamp(r, -127.0, 127.0)));
  }
  return q;
}

SparseMatrix with_values(const SparseMatrix& m, const std::vector<std::int8_t>& values) {
  SparseMatrix out = m;
  out.values.assign(values.begin(), values.end());
  return out;
}

namespace {

std::vector<std::int32_t> narrow(const std::vector<std::int64_t>& acc) {
  std::vector<std::int32_t> y;
  y.reserve(acc.size());
  for (std::size_t i = 0; i < acc.size(); ++i) {
    if (acc[i] < std::numeric_limits<std::int32_t>::min() ||
        acc[i] > std::numeric_limits<std::int32_t>::max())
      throw SparseError(fmt::format("row {}: the int32 accumulator overflows ({})", i, acc[i]));
    y.push_back(static_cast<std::int32_t>(acc[i]));
  }
  return y;
}

}  // namespace

std::vector<std::int32_t> spmv_walk(const SparseMatrix& a, const std::vector<std::int8_t>& x) {
  std::vector<std::int64_t> acc(a.rows, 0);
  for (const Triple& t : stored_entries(a).entries)
    acc[t.row] += static_cast<std::int64_t>(t.value) * x[t.col];
  return narrow(acc);
}

std::vector<std::int32_t> spmv_dense(const std::vector<double>& dense, std::uint64_t rows, std::uint64_t cols,
                                     const std::vector<std::int8_t>& x) {
  std::vector<std::int64_t> acc(rows, 0);
  for (std::uint64_t i = 0; i < rows; ++i)
    for (std::uint64_t j = 0; j < cols; ++j) acc[i] += static_cast<std::int64_t>(dense[i * cols + j]) * x[j];
  return narrow(acc);
}

}  // namespace treesim::sparse
