#include <fmt/format.h>

#include "kernels/conv2d/conv2d.h"
#include "sim/core/checked.h"

namespace treesim::kernels {
namespace {

// (size + pads − dilated kernel) / stride + 1, or 0 when the kernel does not fit.
std::uint64_t out_size(std::uint64_t size, std::uint64_t pads, std::uint64_t kernel, std::uint64_t stride,
                       std::uint64_t dilation) {
  const std::uint64_t span = dilation * (kernel - 1) + 1;
  if (size + pads < span || stride == 0) return 0;
  return (size + pads - span) / stride + 1;
}

}  // namespace

std::uint64_t ConvShape::out_h() const { return out_size(h, pad_top + pad_bottom, r, stride_h, dilation_h); }
std::uint64_t ConvShape::out_w() const { return out_size(w, pad_left + pad_right, s, stride_w, dilation_w); }

program::Window ConvShape::window() const {
  program::Window win;
  win.r = r, win.s = s;
  win.stride_h = stride_h, win.stride_w = stride_w;
  win.dilation_h = dilation_h, win.dilation_w = dilation_w;
  win.pad_top = pad_top, win.pad_left = pad_left;
  win.out_h = out_h(), win.out_w = out_w();
  win.c0 = 0, win.channels = cg();
  return win;
}

AxisPad same_padding(std::uint64_t size, std::uint64_t kernel, std::uint64_t stride, std::uint64_t dilation) {
  const std::uint64_t out = (size + stride - 1) / stride, span = dilation * (kernel - 1) + 1;
  const std::uint64_t needed = (out - 1) * stride + span;
  const std::uint64_t total = needed > size ? needed - size : 0;
  return {total / 2, total - total / 2};
}

core::Errors apply_pad_option(const std::string& text, ConvShape& p) {
  if (text == "same") {
    const AxisPad ph = same_padding(p.h, p.r, p.stride_h, p.dilation_h);
    const AxisPad pw = same_padding(p.w, p.s, p.stride_w, p.dilation_w);
    p.pad_top = ph.begin, p.pad_bottom = ph.end, p.pad_left = pw.begin, p.pad_right = pw.end;
    return {};
  }
  bool digits = !text.empty() && text.size() <= 8;
  for (char ch : text) digits = digits && ch >= '0' && ch <= '9';
  if (!digits) return {{"--pad", fmt::format("expected a number of pixels or same, got '{}'", text)}};
  p.pad_top = p.pad_bottom = p.pad_left = p.pad_right = std::stoull(text);
  return {};
}

core::Errors conv_shape_errors(const ConvShape& p) {
  core::Errors errors;
  constexpr std::uint64_t kMax = std::uint64_t{1} << 24;  // per size: products stay far from 2^64
  for (auto [value, option] : {std::pair{p.n, "--n"},
                               {p.h, "--h"},
                               {p.w, "--w"},
                               {p.c, "--c"},
                               {p.k, "--k"},
                               {p.r, "--r"},
                               {p.s, "--s"},
                               {p.stride_h, "--stride"},
                               {p.stride_w, "--stride"},
                               {p.dilation_h, "--dilation"},
                               {p.dilation_w, "--dilation"},
                               {p.groups, "--groups"}}) {
    if (value == 0)
      errors.push_back({option, "must be at least 1"});
    else if (value > kMax)
      errors.push_back({option, fmt::format("must be at most {}", kMax)});
  }
  for (auto [value, option] : {std::pair{p.pad_top, "--pad"},
                               {p.pad_left, "--pad"},
                               {p.pad_bottom, "--pad"},
                               {p.pad_right, "--pad"}})
    if (value > kMax) errors.push_back({option, fmt::format("must be at most {}", kMax)});
  if (!errors.empty()) return errors;
  if (p.c % p.groups != 0)
    errors.push_back(
        {"--groups", fmt::format("{} groups do not divide the {} input channels (--c)", p.groups, p.c)});
  if (p.k % p.groups != 0)
    errors.push_back(
        {"--groups", fmt::format("{} groups do not divide the {} output channels (--k)", p.groups, p.k)});
  if (p.out_h() == 0)
    errors.push_back(
        {"--r", fmt::format("a {}-tall kernel with dilation {} does not fit the {}-row image padded by {}",
                            p.r, p.dilation_h, p.h, p.pad_top + p.pad_bottom)});
  if (p.out_w() == 0)
    errors.push_back(
        {"--s", fmt::format("a {}-wide kernel with dilation {} does not fit the {}-column image padded by {}",
                            p.s, p.dilation_w, p.w, p.pad_left + p.pad_right)});
  if (!errors.empty()) return errors;
  if (!core::checked_product({p.n, p.out_h(), p.out_w(), p.k, p.r, p.s, p.cg()}) ||
      !core::checked_product({p.n, p.h, p.w, p.c}))
    errors.push_back({"--n", "the convolution's sizes overflow 64 bits"});
  return errors;
}

std::vector<std::int32_t> reference_conv2d(const ConvShape& p, const std::vector<std::int32_t>& x,
                                           std::int32_t x_zero, const std::vector<std::int32_t>& w,
                                           std::int32_t w_zero, const std::vector<std::int32_t>& bias,
                                           const numeric::OutputStage* out) {
  const std::uint64_t oh_n = p.out_h(), ow_n = p.out_w(), cg = p.cg(), kg = p.kg();
  std::vector<std::int32_t> y(p.n * oh_n * ow_n * p.k);
  std::size_t at = 0;
  for (std::uint64_t n = 0; n < p.n; ++n)
    for (std::uint64_t oh = 0; oh < oh_n; ++oh)
      for (std::uint64_t ow = 0; ow < ow_n; ++ow)
        for (std::uint64_t k = 0; k < p.k; ++k) {
          const std::uint64_t g = k / kg;
          std::int64_t acc = 0;
          for (std::uint64_t r = 0; r < p.r; ++r)
            for (std::uint64_t s = 0; s < p.s; ++s) {
              const std::int64_t h = static_cast<std::int64_t>(oh * p.stride_h + r * p.dilation_h) -
                                     static_cast<std::int64_t>(p.pad_top);
              const std::int64_t wc = static_cast<std::int64_t>(ow * p.stride_w + s * p.dilation_w) -
                                      static_cast<std::int64_t>(p.pad_left);
              const bool inside = h >= 0 && wc >= 0 && h < static_cast<std::int64_t>(p.h) &&
                                  wc < static_cast<std::int64_t>(p.w);
              for (std::uint64_t c = 0; c < cg; ++c) {
                // Outside the image the input is its zero point: the term vanishes.
                const std::int64_t xv = inside ? x[((n * p.h + static_cast<std::uint64_t>(h)) * p.w +
                                                    static_cast<std::uint64_t>(wc)) *
                                                       p.c +
                                                   g * cg + c] -
                                                     x_zero
                                               : 0;
                const std::int64_t wv = w[((c * p.r + r) * p.s + s) * p.k + k] - w_zero;
                acc += xv * wv;
              }
            }
          if (!bias.empty()) acc += bias[k];
          // The accumulator is int32 on the machine: it wraps as the MAC array's does.
          const auto acc32 =
              static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(acc)));
          y[at++] =
              out ? numeric::requantize_checked(acc32, *out, out->multipliers.size() > 1 ? k : 0) : acc32;
        }
  return y;
}

}  // namespace treesim::kernels
