#include "sim/program/window.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "sim/core/checked.h"

namespace treesim::program {
namespace {

// An image coordinate of output position `o` and kernel tap `t`, or negative / ≥ size outside.
std::int64_t image_at(std::uint64_t o, std::uint64_t t, std::uint64_t stride, std::uint64_t dilation,
                      std::uint64_t pad) {
  return static_cast<std::int64_t>(o * stride + t * dilation) - static_cast<std::int64_t>(pad);
}

// Walks the block: fn(row, col, element) for every element, row and col in the block, `element` the
// tensor's element (row-major index) it reads, or −1 where the window is outside the image.
template <class Fn>
void for_each_element(const Window& w, const std::vector<std::uint64_t>& t,
                      const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& shape,
                      Fn&& fn) {
  const std::int64_t H = static_cast<std::int64_t>(t[1]), W = static_cast<std::int64_t>(t[2]);
  const std::uint64_t C = t[3], pixels = w.out_h * w.out_w, taps = w.r * w.s;
  for (std::uint64_t row = offset[0]; row < offset[0] + shape[0]; ++row) {
    const std::uint64_t n = row / pixels, oh = row % pixels / w.out_w, ow = row % w.out_w;
    for (std::uint64_t col = offset[1]; col < offset[1] + shape[1]; ++col) {
      const std::uint64_t c = col / taps, r = col % taps / w.s, s = col % w.s;
      const std::int64_t h = image_at(oh, r, w.stride_h, w.dilation_h, w.pad_top);
      const std::int64_t x = image_at(ow, s, w.stride_w, w.dilation_w, w.pad_left);
      const bool inside = h >= 0 && x >= 0 && h < H && x < W;
      fn(row - offset[0], col - offset[1],
         inside
             ? static_cast<std::int64_t>(
                   ((n * t[1] + static_cast<std::uint64_t>(h)) * t[2] + static_cast<std::uint64_t>(x)) * C +
                   w.c0 + c)
             : std::int64_t{-1});
    }
  }
}

}  // namespace

std::optional<std::vector<std::uint64_t>> window_matrix_shape(const Window& w,
                                                              const std::vector<std::uint64_t>& t) {
  if (t.size() != 4) return std::nullopt;
  std::optional<std::uint64_t> rows = core::checked_product({t[0], w.out_h, w.out_w});
  std::optional<std::uint64_t> cols = core::checked_product({w.r, w.s, w.channels});
  if (!rows || !cols) return std::nullopt;
  return std::vector<std::uint64_t>{*rows, *cols};
}

std::string window_error(const Window& w, const std::vector<std::uint64_t>& t) {
  if (t.size() != 4) return fmt::format("a window reads an NHWC tensor of rank 4, not rank {}", t.size());
  for (auto [value, name] : {std::pair{w.r, "r"},
                             {w.s, "s"},
                             {w.stride_h, "stride_h"},
                             {w.stride_w, "stride_w"},
                             {w.dilation_h, "dilation_h"},
                             {w.dilation_w, "dilation_w"},
                             {w.out_h, "out_h"},
                             {w.out_w, "out_w"},
                             {w.channels, "channels"}})
    if (value == 0) return fmt::format("window {} must be at least 1", name);
  constexpr std::uint64_t kMax = std::uint64_t{1} << 31;  // image coordinates stay in int64 with room
  for (std::uint64_t v : {w.r, w.s, w.stride_h, w.stride_w, w.dilation_h, w.dilation_w, w.pad_top, w.pad_left,
                          w.out_h, w.out_w})
    if (v > kMax) return fmt::format("window sizes, strides, dilations and pads must be at most {}", kMax);
  if (w.c0 >= t[3] || w.channels > t[3] - w.c0)
    return fmt::format("window channels [{}, {}) are not inside the tensor's {} channels", w.c0,
                       w.c0 + w.channels, t[3]);
  if (!window_matrix_shape(w, t)) return "the window's matrix has more than 2^64 elements";
  return "";
}

std::vector<ElementRun> window_runs(const Window& w, const std::vector<std::uint64_t>& t,
                                    const std::vector<std::uint64_t>& offset,
                                    const std::vector<std::uint64_t>& shape) {
  if (shape[0] == 0 || shape[1] == 0) return {};
  // The elements lie in the images of the block's first and last rows.
  const std::uint64_t image = t[1] * t[2] * t[3], pixels = w.out_h * w.out_w;
  const std::uint64_t lo = offset[0] / pixels * image, hi = ((offset[0] + shape[0] - 1) / pixels + 1) * image;
  std::vector<std::uint8_t> touched(hi - lo, 0);
  for_each_element(w, t, offset, shape, [&](std::uint64_t, std::uint64_t, std::int64_t e) {
    if (e >= 0) touched[static_cast<std::uint64_t>(e) - lo] = 1;
  });
  return marked_runs(touched, lo);
}

std::vector<ElementRun> marked_runs(const std::vector<std::uint8_t>& marks, std::uint64_t base) {
  // Marks are 0 or 1: memchr finds each run's ends many bytes at a time.
  std::vector<ElementRun> runs;
  const std::uint8_t* const begin = marks.data();
  const std::uint8_t* const end = begin + marks.size();
  for (const std::uint8_t* p = begin; p < end;) {
    const auto* on = static_cast<const std::uint8_t*>(std::memchr(p, 1, static_cast<std::size_t>(end - p)));
    if (!on) break;
    const auto* off =
        static_cast<const std::uint8_t*>(std::memchr(on, 0, static_cast<std::size_t>(end - on)));
    if (!off) off = end;
    runs.push_back({base + static_cast<std::uint64_t>(on - begin), static_cast<std::uint64_t>(off - on)});
    p = off;
  }
  return runs;
}

void window_elements(const Window& w, const std::vector<std::uint64_t>& t,
                     const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& shape,
                     std::vector<std::uint64_t>& out) {
  for_each_element(w, t, offset, shape, [&](std::uint64_t, std::uint64_t, std::int64_t e) {
    if (e >= 0) out.push_back(static_cast<std::uint64_t>(e));
  });
}

void expand_window(const Window& w, const std::vector<std::uint64_t>& t,
                   const std::vector<std::uint64_t>& offset, const std::vector<std::uint64_t>& shape,
                   const std::uint8_t* src, std::uint64_t base, std::size_t eb, std::int32_t pad,
                   std::uint8_t* dst) {
  const std::uint64_t cols = shape[1];
  std::uint8_t pad_bytes[4];
  for (int i = 0; i < 4; ++i)
    pad_bytes[i] = static_cast<std::uint8_t>(static_cast<std::uint32_t>(pad) >> (8 * i));
  for_each_element(w, t, offset, shape, [&](std::uint64_t row, std::uint64_t col, std::int64_t e) {
    std::memcpy(dst + (row * cols + col) * eb,
                e < 0 ? pad_bytes : src + (static_cast<std::uint64_t>(e) - base) * eb, eb);
  });
}

std::string window_text(const Window& w) {
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}", w.r, w.s, w.stride_h, w.stride_w, w.dilation_h,
                     w.dilation_w, w.pad_top, w.pad_left, w.out_h, w.out_w, w.c0, w.channels);
}

}  // namespace treesim::program
