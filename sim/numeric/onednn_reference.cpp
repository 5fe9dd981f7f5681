#include "sim/numeric/onednn_reference.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/numeric/qgemm_reference.h"

namespace treesim::numeric {

std::vector<std::int32_t> reference_qgemm_onednn(const OneDnnGemmParams& p,
                                                 const std::vector<std::int32_t>& a,
                                                 const std::vector<std::int32_t>& b,
                                                 const std::vector<float>& bias) {
  if (p.wei_scales.size() != 1 && p.wei_scales.size() != p.N)
    throw QuantError(fmt::format("{} weight scales for N = {} (expected 1 or N)", p.wei_scales.size(), p.N));
  if (!bias.empty() && bias.size() != p.N)
    throw QuantError(fmt::format("bias has {} values, expected N = {}", bias.size(), p.N));
  // The exact accumulator is the same as TFLite's (bias excluded: oneDNN adds it in f32).
  QGemmParams q;
  q.M = p.M;
  q.N = p.N;
  q.K = p.K;
  q.a_dtype = p.src_dtype;
  q.b_dtype = p.wei_dtype;
  q.a_zero_point = p.src_zero_point;
  q.b_zero_point = p.wei_zero_point;
  const std::vector<std::int32_t> acc = reference_qgemm_acc(q, a, b);

  // int32 has no exact f32 bounds: 2147483520 is the largest float below 2^31.
  const float lo = p.dst_dtype == DType::kInt32 ? -2147483648.0f : static_cast<float>(dtype_min(p.dst_dtype));
  const float hi = p.dst_dtype == DType::kInt32 ? 2147483520.0f : static_cast<float>(dtype_max(p.dst_dtype));
  const float inv_dst_scale = 1.0f / p.dst_scale;
  std::vector<std::int32_t> out(acc.size());
  for (std::size_t m = 0; m < p.M; ++m) {
    for (std::size_t n = 0; n < p.N; ++n) {
      const float wei_scale = p.wei_scales[p.wei_scales.size() == 1 ? 0 : n];
      float d = static_cast<float>(acc[m * p.N + n]);
      if (p.fold_scales) {
        d = d * (p.src_scale * wei_scale);
      } else {
        d = d * p.src_scale;
        d = d * wei_scale;
      }
      if (!bias.empty()) d = d + bias[n];
      for (const OneDnnPostOp& op : p.post_ops) {
        if (op.kind == OneDnnPostOp::Kind::kRelu)
          d = d > 0.0f ? d : op.alpha * d;
        else
          d = std::min(std::max(d, op.alpha), op.beta);
      }
      d = d * inv_dst_scale;
      d = d + static_cast<float>(p.dst_zero_point);
      if (std::isnan(d)) throw QuantError(fmt::format("dst [{}][{}] is NaN (check the scales)", m, n));
      d = std::min(std::max(d, lo), hi);  // saturate first, then round (ties to even)
      out[m * p.N + n] = static_cast<std::int32_t>(std::nearbyint(d));
    }
  }
  return out;
}

}  // namespace treesim::numeric
