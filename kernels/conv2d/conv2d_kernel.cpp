// conv2d under the kernel contract (kernels/kernel.h): seeded or given operands, the plan (qgemm's
// planner on one group's GEMM), the program (the groups' GEMMs with windowed A loads), the host
// reference and the report.
#include <fmt/format.h>

#include "kernels/conv2d/conv2d.h"
#include "kernels/gemm/gemm_tune.h"
#include "kernels/operand_bytes.h"
#include "kernels/qgemm/qgemm_kernel.h"
#include "kernels/qgemm/qgemm_program.h"
#include "sim/core/mt19937_64.h"
#include "sim/layout/parse.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

QgemmProblem group_gemm(const ConvShape& shape, const ConvQuant& q) {
  QgemmProblem g;
  g.m = shape.gemm_m(), g.n = shape.kg(), g.k = shape.gemm_k();
  g.groups = shape.groups;
  g.a_dtype = q.x_dtype, g.b_dtype = q.w_dtype;
  g.a_zero = q.x_zero, g.b_zero = q.w_zero;
  g.int32_out = q.int32_out;
  g.out = q.out;
  // A group's requant: per channel with several channels per group (read from the LMs), else one
  // multiplier (the problem's, or each depthwise group's own, held by its instructions).
  if (q.out.multipliers.size() > 1 && shape.kg() > 1)
    g.out.multipliers.assign(q.out.multipliers.begin(),
                             q.out.multipliers.begin() + static_cast<std::ptrdiff_t>(shape.kg()));
  else if (!q.out.multipliers.empty())
    g.out.multipliers = {q.out.multipliers.front()};
  return g;
}

class Conv2dInstance : public Problem {
 public:
  // Operands given, or (without them) drawn from `seed` when first needed: X, then W.
  Conv2dInstance(ConvShape shape, ConvQuant quant, std::vector<std::int32_t> bias,
                 std::optional<ConvOperands> given, std::uint64_t seed, WindowLoads windows)
      : shape_(shape),
        quant_(std::move(quant)),
        gemm_(group_gemm(shape_, quant_)),
        bias_(std::move(bias)),
        given_(std::move(given)),
        seed_(seed),
        windows_(windows) {
    gemm_.has_bias = !bias_.empty();
  }

  core::Errors check(const machine::MachineConfig& machine) const override {
    core::Errors errors;
    try {
      check_problem(gemm_);
      if (!quant_.int32_out) numeric::validate(quant_.out, shape_.k);
    } catch (const QgemmError& e) {
      errors.push_back({"", e.what()});
    } catch (const numeric::QuantError& e) {
      errors.push_back({"", e.what()});
    }
    if (lm_.keep_output && (shape_.groups != 1 || quant_.int32_out))
      errors.push_back({"", "conv2d keeps its output in the LMs only with one group and 8-bit outputs"});
    if (machine.dram_channels() > 1)
      errors.push_back(
          {"--machine", fmt::format("conv2d's windowed loads need one DRAM channel; machine '{}' has {}",
                                    machine.name, machine.dram_channels())});
    const std::uint64_t x = shape_.n * shape_.h * shape_.w * shape_.c, w = shape_.gemm_k() * shape_.k,
                        y = shape_.gemm_m() * shape_.k * gemm_.out_bytes(), vectors = shape_.k * 12;
    std::optional<std::uint64_t> total = checked_add(x, w);
    for (std::uint64_t part : {y, vectors}) total = total ? checked_add(*total, part) : std::nullopt;
    if (!total || *total > machine.dram.bytes)
      errors.push_back(
          {"--n", fmt::format("the input, weights and output need {} bytes of DRAM, the machine has {}",
                              total ? fmt::to_string(*total) : "more than 2^64", machine.dram.bytes)});
    return errors;
  }

  Result<Plan> plan(const machine::MachineConfig& machine) const override {
    try {
      if (lm_.input || lm_.keep_output) return plan_in_lm(machine);
      // The search prices plain A tile loads, not windows: the short list of tilings (kernels/gemm/gemm.h).
      QgemmPlan p = default_plan(gemm_, machine, {}, TilingRange::kShortList);
      WindowPricing price;
      if (core::Errors e = choose_window_loads(shape_, gemm_, windows_, p, machine, &price); !e.empty())
        return e;
      return to_plan(p, price, machine);
    } catch (const QgemmError& e) {
      return core::Error{"", e.what()};
    } catch (const layout::LayoutError& e) {
      return core::Error{"", e.what()};
    }
  }

  Result<Candidates> candidates(const machine::MachineConfig& machine) const override {
    // Each candidate with its windows priced both ways (the forced way under --windows; im2col where
    // forced halos do not fit its LM).
    Candidates c = gemm_candidates(
        gemm_, machine, {},
        [&](const QgemmPlan& p) {
          QgemmPlan q = p;
          WindowPricing price;
          if (core::Errors e = choose_window_loads(shape_, gemm_, windows_, q, machine, &price); !e.empty())
            choose_window_loads(shape_, gemm_, WindowLoads::kIm2col, q, machine, &price);
          return to_plan(q, price, machine);
        },
        TilingRange::kShortList);
    if (c.ranked.empty()) return core::Error{"", "no plan fits this machine"};
    return c;
  }

  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& machine) const override {
    const auto* mapping = std::any_cast<QgemmPlan>(&plan.mapping);
    if (!mapping) return core::Error{"", "conv2d: the plan was not made by conv2d"};
    GemmOperands ops;
    ops.a_window = shape_.window();
    ops.a_shape = {shape_.n, shape_.h, shape_.w, shape_.c};
    if (!gemm_.int32_out && !gemm_.per_channel() && quant_.out.multipliers.size() > 1)  // a channel per group
      ops.group_multipliers = quant_.out.multipliers;
    ops.a_in_lm = lm_.input;
    try {
      return build_program(gemm_, *mapping, machine, ops);
    } catch (const layout::LayoutError& e) {
      return core::Error{"", e.what()};
    } catch (const QgemmError& e) {
      return core::Error{"", e.what()};
    }
  }

  std::vector<std::string> input_tensors() const override {
    std::vector<std::string> names{"A", "B"};
    if (gemm_.has_bias) names.push_back("bias");
    if (gemm_.per_channel()) names.insert(names.end(), {"multiplier", "shift"});
    return names;
  }

  DramImage inputs() const override {
    DramImage dram;
    ConvOperands ops = operands();
    dram.emplace("A", std::move(ops.x));
    dram.emplace("B", std::move(ops.w));
    if (gemm_.has_bias) dram["bias"] = int32_bytes(bias_);
    if (gemm_.per_channel()) {
      std::vector<std::int32_t> mult, shift;
      for (const auto& q : quant_.out.multipliers) {
        mult.push_back(q.multiplier);
        shift.push_back(q.shift);
      }
      dram["multiplier"] = int32_bytes(mult);
      dram["shift"] = int32_bytes(shift);
    }
    return dram;
  }

  Result<DramImage> reference() const override {
    ConvOperands ops = operands();
    std::vector<std::int32_t> y;
    try {
      y = reference_conv2d(shape_, codes(ops.x, quant_.x_dtype), quant_.x_zero, codes(ops.w, quant_.w_dtype),
                           quant_.w_zero, bias_, quant_.int32_out ? nullptr : &quant_.out);
    } catch (const numeric::QuantError& e) {
      return core::Error{"", std::string("the host reference rejects this problem: ") + e.what()};
    }
    if (quant_.int32_out) return DramImage{{"C", int32_bytes(y)}};
    std::vector<std::uint8_t> bytes(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) bytes[i] = static_cast<std::uint8_t>(y[i]);
    return DramImage{{"C", std::move(bytes)}};
  }

  void add_report_fields(const Plan& plan, const machine::MachineConfig& machine,
                         report::RunStats& stats) const override {
    const auto* p = std::any_cast<QgemmPlan>(&plan.mapping);
    if (!p) return;
    stats.info["plan"] = describe(*p, machine);
    stats.info["windows"] = lm_.input ? "lm" : p->lm_halo ? "halo" : "im2col";
    if (p->c_resident) stats.info["output"] = fmt::format("kept in the LMs at offset {}", *p->c_resident);
    stats.info["gemm"] = gemm_text();
    for (auto [key, value] : {std::pair{"n", shape_.n},
                              {"h", shape_.h},
                              {"w", shape_.w},
                              {"c", shape_.c},
                              {"k", shape_.k},
                              {"r", shape_.r},
                              {"s", shape_.s},
                              {"groups", shape_.groups},
                              {"out_h", shape_.out_h()},
                              {"out_w", shape_.out_w()},
                              {"conv_macs", shape_.macs()},
                              {"input_bytes", shape_.n * shape_.h * shape_.w * shape_.c},
                              {"tile_m", p->tm},
                              {"tile_n", p->tn},
                              {"tile_k", p->kt},
                              {"k_steps", p->steps},
                              {"passes", p->m_passes * p->n_passes * shape_.groups}})
      stats.extra[key] = value;
  }

  std::optional<std::uint64_t> useful_macs() const override {
    return gemm_.groups * gemm_.m * gemm_.n * gemm_.k;
  }

  std::vector<OutputArray> outputs() const override {
    return {{"C", gemm_.out_dtype(), {shape_.n, shape_.out_h(), shape_.out_w(), shape_.k}, std::nullopt}};
  }

 private:
  std::string gemm_text() const {
    return fmt::format("{} group{} of M={} N={} K={} (the windows of the {}×{}×{}×{} input)", shape_.groups,
                       shape_.groups == 1 ? "" : "s", gemm_.m, gemm_.n, gemm_.k, shape_.n, shape_.h, shape_.w,
                       shape_.c);
  }

  Plan to_plan(const QgemmPlan& plan, const WindowPricing& price,
               const machine::MachineConfig& machine) const {
    Plan out;
    out.estimated_cycles = plan.estimated_cycles;  // of every group's passes
    if (price.lm_cycles) {
      out.description = describe(plan, machine) + "\nconv: " + gemm_text() +
                        fmt::format(
                            "\nwindows: converted from the input in the LMs (at offset {}; estimate {:.0f} "
                            "cycles)",
                            lm_.input->lm, *price.lm_cycles);
      if (plan.c_resident)
        out.description += fmt::format("\noutput: kept in the LMs at offset {}", *plan.c_resident);
      out.mapping = plan;
      return out;
    }
    const std::string estimates = price.halo_refusal.empty()
                                      ? fmt::format("estimates: im2col {:.0f} cycles, halo {:.0f} cycles",
                                                    price.im2col_cycles, price.halo_cycles)
                                      : fmt::format("estimates: im2col {:.0f} cycles; halo {}",
                                                    price.im2col_cycles, price.halo_refusal);
    out.description =
        describe(plan, machine) + "\nconv: " + gemm_text() + "\nwindows: " +
        (plan.lm_halo ? fmt::format("halo patches at LM offset {}, expanded by the copy unit", *plan.lm_halo)
                      : std::string("im2col by the loader")) +
        " (" + estimates + ")";
    if (plan.c_resident)
      out.description += fmt::format("\noutput: kept in the LMs at offset {}", *plan.c_resident);
    out.mapping = plan;
    return out;
  }

  // The plan with the input and/or the output in the LMs (lm_): the working buffers below the
  // input's region, the kept output above that region where it fits, else just below it (its size
  // depends on the tiles, so the buffers are shaped again until it fits beside them).
  Result<Plan> plan_in_lm(const machine::MachineConfig& m) const {
    const std::uint64_t lm = m.lm_bytes(), w = lm_words(m);
    auto aligned = [&](std::uint64_t bytes) { return timing::ceil_div(bytes, w) * w; };
    const std::uint64_t top = lm_.input ? lm_.input->lm : lm;
    const std::uint64_t above = lm_.input ? lm - std::min(lm, lm_.input->lm + lm_.input->bytes) : 0;
    std::uint64_t reserve = 0, kept = 0;
    for (int round = 0; round < 8 && reserve < top; ++round) {
      machine::MachineConfig fit = m;
      fit.levels.back().memory_bytes = top - reserve;
      QgemmPlan p = default_plan(gemm_, fit, {}, TilingRange::kShortList);
      if (lm_.keep_output) {
        kept = aligned(resident_bytes_c(gemm_, p));
        if (reserve == 0 && kept <= above) {
          p.c_resident = lm - kept;
        } else if (kept <= reserve) {
          p.c_resident = top - reserve;
        } else {
          reserve = std::max(kept, reserve + w);
          continue;
        }
      }
      WindowPricing price;
      if (lm_.input)
        price = price_lm_windows(shape_, gemm_, p, *lm_.input, fit);
      else if (core::Errors e = choose_window_loads(shape_, gemm_, windows_, p, fit, &price); !e.empty())
        return e;
      return to_plan(p, price, m);
    }
    return core::Error{"",
                       fmt::format("the output kept in the LMs ({} bytes per PE) leaves no room for a K step "
                                   "below {} bytes",
                                   kept, top)};
  }

  ConvOperands operands() const {
    if (given_) return *given_;
    core::Mt19937_64 gen(seed_);
    auto bytes = [&](std::uint64_t count) {
      std::vector<std::uint8_t> v(count);
      for (auto& b : v) b = static_cast<std::uint8_t>(gen() >> 24);
      return v;
    };
    ConvOperands ops;
    ops.x = bytes(shape_.n * shape_.h * shape_.w * shape_.c);
    ops.w = bytes(shape_.gemm_k() * shape_.k);
    return ops;
  }

  ConvShape shape_;
  ConvQuant quant_;
  QgemmProblem gemm_;
  std::vector<std::int32_t> bias_;
  std::optional<ConvOperands> given_;
  std::uint64_t seed_ = 1;
  WindowLoads windows_ = WindowLoads::kAuto;
  ConvLm lm_;

  friend bool kernels::set_conv_lm(Problem& problem, ConvLm lm);
  friend std::optional<LmTensor> kernels::conv_output_in_lm(const Problem& problem, const Plan& plan,
                                                            const machine::MachineConfig& machine);
};

}  // namespace

Result<std::unique_ptr<Problem>> conv2d_seeded_problem(const ConvShape& shape, ConvQuant quant,
                                                       std::vector<std::int32_t> bias, std::uint64_t seed,
                                                       WindowLoads windows) {
  return std::unique_ptr<Problem>(
      new Conv2dInstance(shape, std::move(quant), std::move(bias), std::nullopt, seed, windows));
}

Result<std::unique_ptr<Problem>> conv2d_problem(const ConvShape& shape, const ConvQuant& quant,
                                                ConvOperands operands) {
  if (core::Errors e = conv_shape_errors(shape); !e.empty()) return e;
  const std::uint64_t x = shape.n * shape.h * shape.w * shape.c, w = shape.gemm_k() * shape.k;
  if (operands.x.size() != x || operands.w.size() != w)
    return core::Error{"", fmt::format("conv2d: {} input and {} weight bytes, expected {} and {}",
                                       operands.x.size(), operands.w.size(), x, w)};
  if (!operands.bias.empty() && (operands.bias.size() != shape.k || quant.int32_out))
    return core::Error{
        "", fmt::format("conv2d: {} bias values for {} output channels{}", operands.bias.size(), shape.k,
                        quant.int32_out ? " with int32 outputs (which take none)" : "")};
  if (!quant.int32_out && quant.out.multipliers.size() != 1 && quant.out.multipliers.size() != shape.k)
    return core::Error{"", fmt::format("conv2d: {} multipliers for {} output channels",
                                       quant.out.multipliers.size(), shape.k)};
  std::vector<std::int32_t> bias = std::move(operands.bias);
  return std::unique_ptr<Problem>(
      new Conv2dInstance(shape, quant, std::move(bias), std::move(operands), 1, WindowLoads::kAuto));
}

bool set_conv_lm(Problem& problem, ConvLm lm) {
  auto* conv = dynamic_cast<Conv2dInstance*>(&problem);
  if (!conv) return false;
  conv->lm_ = std::move(lm);
  return true;
}

std::optional<LmTensor> conv_output_in_lm(const Problem& problem, const Plan& plan,
                                          const machine::MachineConfig& m) {
  const auto* conv = dynamic_cast<const Conv2dInstance*>(&problem);
  const auto* p = std::any_cast<QgemmPlan>(&plan.mapping);
  if (!conv || !p || !p->c_resident) return std::nullopt;
  const QgemmProblem& g = conv->gemm_;
  const std::uint64_t w = lm_words(m);
  return LmTensor{layout::parse_layout_or_throw(resident_layout_c(g, *p, m), m),
                  *p->c_resident,
                  timing::ceil_div(resident_bytes_c(g, *p), w) * w,
                  {g.m, g.n}};
}

}  // namespace treesim::kernels
