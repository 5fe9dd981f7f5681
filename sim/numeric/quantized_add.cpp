#include "sim/numeric/quantized_add.h"

#include <fmt/format.h>

namespace treesim::numeric {

std::string add_stage_error(const AddStage& s) {
  for (auto [name, type, zero] : {std::tuple{"a", s.a_dtype, s.a_zero}, std::tuple{"b", s.b_dtype, s.b_zero},
                                  std::tuple{"out", s.out_dtype, s.out_zero}}) {
    if (!core::is_8bit(type)) return fmt::format("{}_dtype must be int8 or uint8", name);
    if (zero < core::dtype_min(type) || zero > core::dtype_max(type))
      return fmt::format("{}_zero {} is outside {}", name, zero, core::dtype_name(type));
  }
  for (auto [name, scale] : {std::pair{"a_scale", s.a_scale}, std::pair{"b_scale", s.b_scale}})
    // At most 2^24, so that every product and sum is far inside int64 (and finite).
    if (!(scale > 0) || !(scale <= 16777216.0f))
      return fmt::format("{} must be a positive number of at most 2^24, got {}", name, scale);
  if (s.act_min > s.act_max || s.act_min < core::dtype_min(s.out_dtype) ||
      s.act_max > core::dtype_max(s.out_dtype))
    return fmt::format("act_min {} and act_max {} must be an ordered range inside {}", s.act_min, s.act_max,
                       core::dtype_name(s.out_dtype));
  return "";
}

}  // namespace treesim::numeric
