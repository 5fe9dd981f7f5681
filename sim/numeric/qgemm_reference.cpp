#include "sim/numeric/qgemm_reference.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "sim/numeric/exact_int8_matmul.h"

namespace treesim::numeric {
namespace {

void check_codes(const char* name, const std::vector<std::int32_t>& v, std::size_t expected_size,
                 const char* shape, DType t) {
  if (v.size() != expected_size)
    throw QuantError(fmt::format("{} has {} values, expected {} ({})", name, v.size(), expected_size, shape));
  if (t == DType::kInt32) throw QuantError(fmt::format("{} must be uint8 or int8, not int32", name));
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!in_range(v[i], t))
      throw QuantError(fmt::format("{}[{}] = {} is outside {} [{}, {}]", name, i, v[i], core::dtype_name(t),
                                   dtype_min(t), dtype_max(t)));
}

void check_zero_point(const char* name, std::int32_t z, DType t) {
  if (!in_range(z, t))
    throw QuantError(fmt::format("{} {} is outside {} [{}, {}]", name, z, core::dtype_name(t), dtype_min(t),
                                 dtype_max(t)));
}

}  // namespace

std::vector<std::int32_t> reference_qgemm_acc(const QGemmParams& p, const std::vector<std::int32_t>& a,
                                              const std::vector<std::int32_t>& b,
                                              const std::vector<std::int32_t>& bias) {
  check_codes("A", a, p.M * p.K, "M×K", p.a_dtype);
  check_codes("B", b, p.K * p.N, "K×N", p.b_dtype);
  if (!bias.empty() && bias.size() != p.N)
    throw QuantError(fmt::format("bias has {} values, expected N = {}", bias.size(), p.N));
  check_zero_point("a_zero_point", p.a_zero_point, p.a_dtype);
  check_zero_point("b_zero_point", p.b_zero_point, p.b_dtype);

  // Eq. 7 in int64, where no term can overflow for 8-bit codes and any K below 2^30. The raw
  // product Σ A·B comes from exact_int8_matmul, which takes int8 B: uint8 B is shifted by −128,
  // and so is its zero point ((b − 128) − (Zb − 128) = b − Zb).
  const bool a_signed = p.a_dtype == DType::kInt8;
  const std::int32_t b_shift = p.b_dtype == DType::kUInt8 ? 128 : 0;
  std::vector<std::uint8_t> a8(a.size());
  std::vector<std::int8_t> b8(b.size());
  for (std::size_t i = 0; i < a.size(); ++i) a8[i] = static_cast<std::uint8_t>(a[i]);
  for (std::size_t i = 0; i < b.size(); ++i) b8[i] = static_cast<std::int8_t>(b[i] - b_shift);
  const std::int64_t za = p.a_zero_point, zb = p.b_zero_point - b_shift, k = static_cast<std::int64_t>(p.K);
  std::vector<std::int64_t> row_sums(p.M, 0), col_sums(p.N, 0), raw(p.M * p.N, 0);
  for (std::size_t m = 0; m < p.M; ++m)
    for (std::size_t i = 0; i < p.K; ++i) row_sums[m] += a[m * p.K + i];
  for (std::size_t i = 0; i < p.K; ++i)
    for (std::size_t n = 0; n < p.N; ++n) col_sums[n] += b8[i * p.N + n];
  std::vector<std::int32_t> part(p.M * p.N);
  for (std::size_t k0 = 0; k0 < p.K; k0 += kExactInt8MatmulMaxK) {
    const std::size_t kc = std::min(kExactInt8MatmulMaxK, p.K - k0);
    exact_int8_matmul(a8.data() + k0, a_signed, b8.data() + k0 * p.N, part.data(), p.M, p.N, kc, p.K, p.N);
    for (std::size_t i = 0; i < part.size(); ++i) raw[i] += part[i];
  }

  std::vector<std::int32_t> acc(p.M * p.N);
  for (std::size_t m = 0; m < p.M; ++m) {
    for (std::size_t n = 0; n < p.N; ++n) {
      std::int64_t v = k * za * zb - za * col_sums[n] - zb * row_sums[m] + raw[m * p.N + n];
      if (!bias.empty()) v += bias[n];
      if (v < std::numeric_limits<std::int32_t>::min() || v > std::numeric_limits<std::int32_t>::max())
        throw QuantError(fmt::format("accumulator [{}][{}] = {} does not fit int32", m, n, v));
      acc[m * p.N + n] = static_cast<std::int32_t>(v);
    }
  }
  return acc;
}

std::vector<std::int32_t> reference_qgemm(const QGemmParams& p, const std::vector<std::int32_t>& a,
                                          const std::vector<std::int32_t>& b,
                                          const std::vector<std::int32_t>& bias) {
  validate(p.out, p.N);
  std::vector<std::int32_t> acc = reference_qgemm_acc(p, a, b, bias);
  std::vector<std::int32_t> out(acc.size());
  for (std::size_t m = 0; m < p.M; ++m)
    for (std::size_t n = 0; n < p.N; ++n) out[m * p.N + n] = requantize_checked(acc[m * p.N + n], p.out, n);
  return out;
}

}  // namespace treesim::numeric
