#include "kernels/requant_of_stage.h"

namespace treesim::kernels {

program::Requant requant_of_stage(const numeric::OutputStage& stage, std::uint64_t src, std::uint64_t dst,
                                  std::uint64_t rows, std::uint64_t cols) {
  program::Requant rq;
  rq.src = src, rq.dst = dst, rq.rows = rows, rq.cols = cols;
  for (const numeric::QuantizedMultiplier& q : stage.multipliers)
    rq.multiplier.push_back(q.multiplier), rq.shift.push_back(q.shift);
  rq.out_zero = stage.out_zero_point, rq.out_dtype = stage.out_dtype;
  rq.act_min = stage.act_min, rq.act_max = stage.act_max, rq.rounding = stage.rounding;
  return rq;
}

}  // namespace treesim::kernels
