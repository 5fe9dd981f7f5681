#include "kernels/gemm/gemm_front.h"

#include <fmt/format.h>

#include "kernels/gemm/gemm_tune.h"
#include "kernels/gemm/plan_file.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"

namespace treesim::kernels {

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

GemmFront::GemmFront(std::string kernel, std::string b_name, GemmLayouts layouts)
    : kernel_(std::move(kernel)),
      b_name_(std::move(b_name)),
      b_option_(b_name_ == "W" ? "--layout-w" : "--layout-b"),
      layouts_(std::move(layouts)) {}

std::string GemmFront::named(std::string what) const {
  if (b_option_ == "--layout-b") return what;
  for (std::size_t at; (at = what.find("--layout-b")) != std::string::npos;) what.replace(at, 10, b_option_);
  return what;
}

core::Errors GemmFront::check(const QgemmProblem& p, const machine::MachineConfig& machine) const {
  core::Errors errors;
  try {
    check_problem(p);
  } catch (const QgemmError& e) {
    errors.push_back({"", e.what()});
  }
  core::Errors size = gemm_size_errors(p.m, p.n, p.k, p.has_bias, p.per_channel(), machine, false);
  errors.insert(errors.end(), size.begin(), size.end());
  return errors;
}

core::Errors GemmFront::layout_errors(const QgemmProblem& p, const machine::MachineConfig& m) const {
  core::Errors errors;
  for (auto [text, shape, option] :
       {std::tuple{&layouts_.a, std::vector<std::uint64_t>{p.m, p.k}, std::string("--layout-a")},
        {&layouts_.b, std::vector<std::uint64_t>{p.k, p.n}, b_option_},
        {&layouts_.c, std::vector<std::uint64_t>{p.m, p.n}, std::string("--layout-c")}}) {
    if (text->empty()) continue;
    try {
      // The whole operand need not fit the LM (the kernel streams tiles of it).
      layout::bind_or_throw(layout::parse_layout_or_throw(*text, m), shape, m, 1,
                            layout::LmCapacity::kUnchecked);
    } catch (const layout::LayoutError& e) {
      errors.push_back({option, "invalid layout:\n" + trimmed(e.what())});
    }
  }
  return errors;
}

Result<Assignment> GemmFront::fixed(const QgemmProblem& p, const machine::MachineConfig& m) const {
  if (core::Errors errors = layout_errors(p, m); !errors.empty()) return errors;
  try {
    return assignment_from_layouts(p, m, layouts_.a, layouts_.b, layouts_.c);
  } catch (const layout::LayoutError& e) {
    return core::Error{"", "invalid layout:\n" + trimmed(e.what())};
  } catch (const QgemmError& e) {
    return core::Error{"", named(e.what())};
  }
}

Result<QgemmPlan> GemmFront::plan(const QgemmProblem& p, const machine::MachineConfig& m,
                                  TilingRange range) const {
  Result<Assignment> given = fixed(p, m);
  if (!given) return given.errors();
  try {
    return default_plan(p, m, given.value(), range);
  } catch (const QgemmError& e) {
    return core::Error{"", named(e.what())};
  } catch (const layout::LayoutError& e) {
    return core::Error{"", "invalid layout:\n" + trimmed(e.what())};
  }
}

Result<Candidates> GemmFront::candidates(const QgemmProblem& p, const machine::MachineConfig& m,
                                         const std::function<Plan(const QgemmPlan&)>& to_plan) const {
  Result<Assignment> given = fixed(p, m);
  if (!given) return given.errors();
  Candidates c = gemm_candidates(p, m, given.value(), to_plan);
  if (c.ranked.empty()) return core::Error{"", "no plan fits this machine"};
  return c;
}

Result<std::string> GemmFront::plan_file(const QgemmProblem& p, const Plan& plan,
                                         const machine::MachineConfig& m) const {
  return gemm_plan_file_text(kernel_, b_name_, p, plan, m);
}

Result<QgemmPlan> GemmFront::plan_from_file(const std::string& path, const QgemmProblem& p,
                                            const machine::MachineConfig& m) const {
  for (auto [text, option] : {std::pair{&layouts_.a, std::string("--layout-a")},
                              {&layouts_.b, b_option_},
                              {&layouts_.c, std::string("--layout-c")}})
    if (!text->empty())
      return core::Error{"--plan-file", fmt::format("the plan fixes the layouts: drop {}", option)};
  return kernels::plan_from_file(path, kernel_, p, m);
}

Result<program::Program> GemmFront::program(const std::function<program::Program()>& build) const {
  try {
    return build();
  } catch (const layout::LayoutError& e) {
    return core::Error{"", trimmed(e.what())};
  } catch (const QgemmError& e) {
    return core::Error{"", e.what()};
  }
}

core::Errors gemm_size_errors(std::uint64_t m, std::uint64_t n, std::uint64_t k, bool has_bias,
                              bool per_channel, const machine::MachineConfig& machine, bool from_files) {
  // A (M×K) + B (K×N) + C (M×N) bytes, and 4 bytes per column for bias, multiplier and shift.
  const std::uint64_t per_column = (has_bias ? 4 : 0) + (per_channel ? 8 : 0);
  std::optional<std::uint64_t> total = checked_mul(m, k);
  for (auto part : {checked_mul(k, n), checked_mul(m, n), checked_mul(n, per_column)})
    total = total && part ? checked_add(*total, *part) : std::nullopt;
  if (total && *total <= machine.dram.bytes) return {};
  // Blame the largest dimension: the one to make smaller.
  const char* option = m >= n && m >= k ? "--m" : n >= k ? "--n" : "--k";
  if (from_files) option = m >= n && m >= k ? "--a" : "--b";
  std::string need = total ? fmt::format("{} bytes", *total) : "more than 2^64 bytes";
  return {{option, fmt::format("a {}×{}×{} GEMM needs {} of DRAM for A, B and C, the machine has {}", m, n, k,
                               need, machine.dram.bytes)}};
}

}  // namespace treesim::kernels
