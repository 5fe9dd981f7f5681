#include "kernels/graph/made_value.h"

#include <algorithm>

namespace treesim::graph {
namespace {

// The NCHW bytes of an NHWC tensor of NCHW shape `nchw`.
std::vector<std::uint8_t> to_nchw(const std::vector<std::uint8_t>& nhwc,
                                  const std::vector<std::uint64_t>& nchw, std::size_t eb) {
  const std::uint64_t n = nchw[0], c = nchw[1], hw = nchw[2] * nchw[3];
  std::vector<std::uint8_t> out(nhwc.size());
  for (std::uint64_t b = 0; b < n; ++b)
    for (std::uint64_t p = 0; p < hw; ++p)
      for (std::uint64_t ch = 0; ch < c; ++ch)
        std::copy_n(nhwc.begin() + static_cast<std::ptrdiff_t>(((b * hw + p) * c + ch) * eb), eb,
                    out.begin() + static_cast<std::ptrdiff_t>(((b * c + ch) * hw + p) * eb));
  return out;
}

}  // namespace

Made normal(Made m) {
  if (m.form != Form::kPlain && (m.nchw[1] == 1 || m.nchw[2] * m.nchw[3] == 1)) m.form = Form::kPlain;
  return m;
}

Tensor value_of(const Made& m, const std::vector<std::uint8_t>& bytes) {
  Tensor t = m.like;
  t.bytes = m.form == Form::kPlain ? bytes : to_nchw(bytes, m.nchw, elem_bytes(t.type));
  return t;
}

std::optional<Made> reshaped(const Made& m, const Tensor& shaped) {
  const std::vector<std::uint64_t>& to = shaped.shape;
  std::optional<Made> out;
  if (m.form == Form::kPlain) {
    out = m;
  } else if (to == m.nchw) {
    out = m, out->form = Form::kNhwc;
  } else if (to.size() == 2 && to[0] == m.nchw[0]) {
    out = m, out->form = Form::kFlatNhwc;
  }
  if (!out) return std::nullopt;
  out->like = Tensor{shaped.type, to, {}};
  return normal(std::move(*out));
}

}  // namespace treesim::graph
