#include "kernels/graph/graph_program.h"

#include <variant>

#include <fmt/format.h>

#include "kernels/qgemm/qgemm_kernel.h"
#include "sim/layout/tensor_layout.h"
#include "sim/program/checked_program.h"
#include "sim/program/relocate.h"

namespace treesim::graph {
namespace {

core::Errors named(const std::string& unit, core::Errors errors) {
  for (core::Error& e : errors) e.where = e.where.empty() ? unit : unit + ", " + e.where;
  return errors;
}

}  // namespace

std::string unit_tensor(std::size_t unit, const std::string& tensor) {
  return fmt::format("u{}.{}", unit, tensor);
}

std::string GraphProgram::rename(std::size_t unit, const std::string& tensor) const {
  const ProgramUnit& u = units_[unit];
  if (auto it = u.linked.find(tensor); it != u.linked.end()) return it->second;
  if (tensor == u.output) return u.output_name;
  return unit_tensor(unit, tensor);
}

core::Errors GraphProgram::check(const machine::MachineConfig& machine) const {
  core::Errors errors;
  for (const ProgramUnit& u : units_)
    for (core::Error& e : named(u.name, u.problem->check(machine))) errors.push_back(std::move(e));
  return errors;
}

kernels::Result<kernels::Plan> GraphProgram::plan(const machine::MachineConfig&) const {
  kernels::Plan p;
  for (const ProgramUnit& u : units_) {
    p.estimated_cycles += u.plan.estimated_cycles;
    p.description += (p.description.empty() ? "" : "\n") + u.name + ": " + u.plan.description;
  }
  return p;
}

kernels::Result<program::Program> GraphProgram::program(const kernels::Plan&,
                                                        const machine::MachineConfig& machine) const {
  program::Program out;
  ranges_.clear();
  sub_phases_.clear();
  // Units sit at alternate ends of the LMs where two neighbours fit side by side, so that a unit's
  // first loads need not wait for the last reads of the one before (only for its data).
  const std::uint64_t lm = machine.lm_bytes();
  std::uint64_t prev_lo = 0, prev_hi = 0;  // the unit before's LM range
  for (std::size_t i = 0; i < units_.size(); ++i) {
    const ProgramUnit& u = units_[i];
    kernels::Result<program::Program> p = u.problem->program(u.plan, machine);
    if (!p) return named(u.name, p.errors());
    if (u.lm_linked) {
      prev_lo = 0, prev_hi = lm;  // its regions reach the top of the LMs
    } else if (units_.size() > 1) {
      const program::CheckedProgram checked = program::check_program(p.value(), machine);
      if (!checked.ok()) return named(u.name, checked.errors);
      const std::uint64_t extent = program::lm_extent(checked);
      std::uint64_t base = 0;
      if (i > 0 && prev_lo == 0 && prev_hi + extent <= lm) base = lm - extent;  // the top end
      if (base != 0) p = program::relocate_lm(std::move(p.value()), base);
      prev_lo = base, prev_hi = base + extent;
    }
    // The unit's shape of each tensor an earlier unit makes, where it is not the maker's.
    std::map<std::string, std::vector<std::uint64_t>> views;
    for (program::TensorDecl t : p->tensors) {
      const std::string name = rename(i, t.name);
      if (u.linked.count(t.name) == 0) {
        t.name = name;
        out.tensors.push_back(std::move(t));
        continue;
      }
      const program::TensorDecl* made = out.find_tensor(name);
      if (!made) return core::Error{u.name, fmt::format("reads '{}', which no unit before it makes", name)};
      if (made->dtype != t.dtype || made->elements() != t.elements())
        return core::Error{u.name,
                           fmt::format("reads '{}' {} {} as {} {}", name, layout::shape_string(made->shape),
                                       core::dtype_name(made->dtype), layout::shape_string(t.shape),
                                       core::dtype_name(t.dtype))};
      if (made->shape != t.shape) views[t.name] = t.shape;
    }
    const std::size_t first = out.instrs.size();
    for (program::Instr instr : p->instrs) {
      core::Errors bad;
      std::visit(
          [&](auto& op) {
            using T = std::decay_t<decltype(op)>;
            if constexpr (std::is_same_v<T, program::Load>) {
              if (auto v = views.find(op.tensor); v != views.end() && op.view.empty()) op.view = v->second;
              op.tensor = rename(i, op.tensor);
            } else if constexpr (std::is_same_v<T, program::Store> || std::is_same_v<T, program::Convert>) {
              bool reads = false;  // a windowed convert only reads (an earlier unit's output in the LMs)
              if constexpr (std::is_same_v<T, program::Convert>) reads = op.window.has_value();
              if (u.linked.count(op.tensor) && !reads)
                bad.push_back(
                    {u.name, fmt::format("writes or converts '{}', which an earlier unit makes", op.tensor)});
              op.tensor = rename(i, op.tensor);
            }
          },
          instr);
      if (!bad.empty()) return bad;
      out.instrs.push_back(std::move(instr));
    }
    ranges_.push_back({first, out.instrs.size()});
    for (Phase ph : u.problem->phases(u.plan, p.value(), machine)) {
      ph.name = u.name + "/" + ph.name;
      ph.first += first, ph.last += first;
      sub_phases_.push_back(std::move(ph));
    }
  }
  return out;
}

kernels::DramImage GraphProgram::inputs() const {
  kernels::DramImage dram;
  for (std::size_t i = 0; i < units_.size(); ++i)
    for (auto& [name, bytes] : units_[i].problem->inputs())
      if (units_[i].linked.count(name) == 0) dram.emplace(rename(i, name), std::move(bytes));
  return dram;
}

kernels::DramImage GraphProgram::take_inputs() {
  kernels::DramImage dram;
  for (std::size_t i = 0; i < units_.size(); ++i)
    for (auto& [name, bytes] : units_[i].problem->take_inputs())
      if (units_[i].linked.count(name) == 0) dram.emplace(rename(i, name), std::move(bytes));
  return dram;
}

std::vector<std::string> GraphProgram::input_tensors() const {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < units_.size(); ++i)
    for (const std::string& name : units_[i].problem->input_tensors())
      if (units_[i].linked.count(name) == 0) names.push_back(rename(i, name));
  return names;
}

kernels::Result<kernels::DramImage> GraphProgram::reference() const {
  return core::Error{"", "a graph's program is verified node by node"};
}

std::vector<kernels::Problem::Phase> GraphProgram::phases(const kernels::Plan&, const program::Program&,
                                                          const machine::MachineConfig&) const {
  std::vector<Phase> out;
  for (std::size_t i = 0; i < units_.size() && i < ranges_.size(); ++i)
    out.push_back({units_[i].name, ranges_[i].first, ranges_[i].second, std::nullopt});
  out.insert(out.end(), sub_phases_.begin(), sub_phases_.end());
  return out;
}

void GraphProgram::add_report_fields(const kernels::Plan& plan, const machine::MachineConfig& machine,
                                     report::RunStats& stats) const {
  for (const ProgramUnit& u : units_) {
    report::RunStats own;
    u.problem->add_report_fields(u.plan, machine, own);
    for (auto& [key, value] : own.info) stats.info[u.name + "/" + key] = value;
    for (auto& [key, value] : own.extra) stats.extra[u.name + "/" + key] = value;
  }
  stats.info["plan"] = plan.description;
  stats.extra["units"] = units_.size();
}

std::vector<kernels::OutputArray> GraphProgram::outputs() const {
  std::vector<kernels::OutputArray> out;
  for (std::size_t i = 0; i < units_.size(); ++i)
    for (kernels::OutputArray a : units_[i].problem->outputs()) {
      a.tensor = rename(i, a.tensor);
      out.push_back(std::move(a));
    }
  return out;
}

std::optional<kernels::ConvLm> link_in_lm(ProgramUnit& prev, const kernels::ConvLm& prev_lm,
                                          ProgramUnit& reader, const machine::MachineConfig& m) {
  auto* gemm = dynamic_cast<kernels::QgemmInstance*>(reader.problem.get());
  kernels::ConvLm keep = prev_lm, read;
  keep.keep_output = true;
  if (!kernels::set_conv_lm(*prev.problem, keep)) return std::nullopt;
  kernels::Result<kernels::Plan> kept = kernels::plan_problem(*prev.problem, m);
  if (kept) read.input = kernels::conv_output_in_lm(*prev.problem, kept.value(), m);
  const auto reads = [&](const kernels::ConvLm& lm) {
    if (!gemm) return kernels::set_conv_lm(*reader.problem, lm);
    gemm->read_a_in_lm(lm.input);
    return true;
  };
  kernels::Result<kernels::Plan> reading = core::Errors{};
  if (read.input && reads(read)) reading = kernels::plan_problem(*reader.problem, m);
  if (!reading || kept->estimated_cycles + reading->estimated_cycles >=
                      prev.plan.estimated_cycles + reader.plan.estimated_cycles) {
    kernels::set_conv_lm(*prev.problem, prev_lm);
    reads({});
    return std::nullopt;
  }
  prev.lm_linked = reader.lm_linked = true;
  prev.plan = std::move(kept.value());
  reader.plan = std::move(reading.value());
  return read;
}

void add_phase(NodeRun& r, const report::RunStats& stats, const std::string& phase) {
  auto it = stats.phases.find(phase);
  if (it == stats.phases.end()) return;
  r.cycles += it->second.cycles;
  r.macs += it->second.work.macs;
  r.dram_read += it->second.work.dram_read_bytes;
  r.dram_written += it->second.work.dram_write_bytes;
}

}  // namespace treesim::graph
