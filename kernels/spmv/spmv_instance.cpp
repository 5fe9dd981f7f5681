// SpMV / SpMM under the kernel contract (kernels/kernel.h).
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "kernels/kernel.h"
#include "kernels/spmv/spmv.h"
#include "kernels/spmv/spmv_kernel.h"
#include "sim/layout/diagnostic.h"
#include "sim/program/checked_program.h"
#include "sim/sparse/sparse_error.h"
#include "sim/timing/cost_model.h"
#include "sim/timing/list_schedule.h"

namespace treesim::kernels {
namespace {

using Placement = std::shared_ptr<const SparsePlacement>;

const SparsePlacement* placement_of(const Plan& plan) {
  const auto* p = std::any_cast<Placement>(&plan.mapping);
  return p ? p->get() : nullptr;
}

// " in 12 passes of row blocks (double-buffered)", " in 40 passes, 2 row blocks in column tiles
// (the heaviest part in 32, double-buffered)"; "" for one pass.
std::string pass_text(const SparsePlacement& s) {
  if (s.passes == 1) return "";
  const std::uint64_t blocks = s.block_passes.size();
  if (s.passes == blocks) return fmt::format(" in {} passes of row blocks (double-buffered)", s.passes);
  return fmt::format(
      " in {} passes, {} row block{} in column tiles (at most {} for a row block, double-buffered)", s.passes,
      blocks, blocks == 1 ? "" : "s", *std::max_element(s.block_passes.begin(), s.block_passes.end()));
}

}  // namespace

SparseInstance::SparseInstance(SparseProblem p, machine::MachineConfig machine)
    : p_(std::move(p)), machine_(std::move(machine)) {}

Result<std::shared_ptr<const SparsePlacement>> SparseInstance::placement(
    const machine::MachineConfig& m) const {
  if (!placement_) {
    try {
      placement_ = std::make_shared<const SparsePlacement>(place_sparse(p_, default_choice(p_), m));
    } catch (const sparse::SparseError& e) {
      return core::Error{"--encoding",
                         fmt::format("{}: {}{}", p_.encoding_name, e.what(), p_.placement_hint)};
    }
  }
  return placement_;
}

core::Errors SparseInstance::check(const machine::MachineConfig& m) const {
  if (m.pe.words_per_address != 1)
    return {{"--machine", fmt::format("{}: the sparse kernels need pe.words_per_address = 1, got {}", m.name,
                                      m.pe.words_per_address)}};
  return {};
}

core::Errors SparseInstance::options_placement_fits(const machine::MachineConfig& m) const {
  auto s = placement(m);
  if (!s) return s.errors();
  const SparsePlacement& pl = *s.value();
  if (pl.lm_end > m.lm_bytes()) {
    return {{"--matrix",
             fmt::format("{}: in {} pass{} (a row per grid row and a column per tile) a PE's share still "
                         "needs {} bytes of LM (A's "
                         "arrays {} bytes, at PE {} of pass {}; x rows {}, output rows {}), the LM holds {}; "
                         "use a machine with more PEs or LM",
                         p_.matrix, pl.passes, pl.passes == 1 ? "" : "es", pl.lm_end, pl.block_bytes,
                         pl.largest_pe, pl.largest_pass, pl.x_rows, pl.c_rows, m.lm_bytes())}};
  }
  return {};
}

Result<Plan> SparseInstance::plan(const machine::MachineConfig& m) const {
  if (core::Errors e = options_placement_fits(m); !e.empty()) return e;
  auto got = placement(m);
  return plan_of(got.value(), m);
}

Result<Plan> SparseInstance::plan_of(std::shared_ptr<const SparsePlacement> placed,
                                     const machine::MachineConfig& m) const {
  const SparsePlacement& s = *placed;
  const SparseChoice& c = s.choice;
  // Estimate: the program's steps by their closed forms, each starting when its data is ready and
  // its resources are free (timing::list_schedule), so that a pass's loads overlap the walk before
  // it as the double buffers let them. The walk lasts as long as the busiest PE's.
  const timing::CostModel cost(m);
  std::uint64_t cycles = 0;
  try {
    const program::Program prog = build_sparse_program(p_, s, m);
    auto checked_ptr = std::make_shared<const program::CheckedProgram>(program::check_program(prog, m));
    const program::CheckedProgram& checked = *checked_ptr;
    if (!checked.ok()) return core::Error{"", checked.errors.front().message()};
    checked_for_ = placed, checked_ = std::move(checked_ptr);
    std::vector<timing::ScheduleStep> steps(prog.instrs.size());
    const auto hold = [](timing::ScheduleStep& step, const timing::TransferTime& t) {
      for (const timing::Stage& stage : t.stages) step.holds.emplace_back(stage.resource, stage.cycles);
      step.duration = t.duration();
    };
    const auto hold_unit = [](timing::ScheduleStep& step, timing::Unit u, const timing::UnitTime& t) {
      step.holds.emplace_back(timing::Resource::unit(u), t.busy);
      step.duration = t.duration();
    };
    for (std::size_t i = 0; i < prog.instrs.size(); ++i) {
      timing::ScheduleStep& step = steps[i];
      step.reads = &checked.instrs[i].reads, step.writes = &checked.instrs[i].writes;
      const program::Instr& instr = prog.instrs[i];
      if (const auto& t = checked.instrs[i].transfer) {
        hold(step, std::holds_alternative<program::Load>(instr) ? cost.load(t->plan) : cost.store(t->plan));
      } else if (const auto* mac = std::get_if<program::SparseMac>(&instr)) {
        // Each step's work from its instruction, as the sequencer takes it.
        std::uint64_t busiest = 0;
        for (std::uint64_t pe = 0; pe < mac->entries.size(); ++pe)
          busiest = std::max(
              busiest, cost.sparse_items(mac->entries[pe], mac->segments[pe], mac->visits_of(pe), mac->n));
        hold_unit(step, timing::Unit::kMac, cost.unit(timing::Unit::kMac, busiest, timing::Path::kSparse));
      } else if (const auto* reduce = std::get_if<program::Reduce>(&instr)) {
        hold(step, cost.collective(timing::Collective::kReduce, reduce->level.index, 4 * reduce->count));
      } else if (const auto* rq = std::get_if<program::Requant>(&instr)) {
        hold_unit(step, timing::Unit::kRequant, cost.unit(timing::Unit::kRequant, rq->rows * rq->cols));
      }
    }
    cycles = timing::list_schedule(steps);
  } catch (const layout::LayoutError& e) {
    return core::Error{"", e.what()};
  }
  Plan out;
  out.estimated_cycles = static_cast<double>(cycles);
  std::string grid = s.reduce_level >= 0
                         ? fmt::format(" ({}x{} grid, rows summed over each {})", s.grid_rows, s.grid_cols,
                                       m.levels[static_cast<std::size_t>(s.reduce_level)].name)
                         : "";
  out.description = fmt::format(
      "plan: {} {}x{} ({} nonzeros) in {} split by {} over {} PEs{}{}; per PE{}: A {} B, x {} rows, {} "
      "output "
      "rows; LM {} of {} bytes",
      p_.spmm ? "SpMM" : "SpMV", p_.a.rows, p_.a.cols, p_.nonzeros, c.encoding_name,
      sparse::partition_name(c.partition), s.pes, grid, pass_text(s), s.passes > 1 ? " and pass" : "",
      s.block_bytes, s.x_rows, s.c_rows, s.lm_end, m.lm_bytes());
  out.mapping = std::move(placed);
  return out;
}

Result<program::Program> SparseInstance::program(const Plan& plan, const machine::MachineConfig& m) const {
  const SparsePlacement* s = placement_of(plan);
  if (!s) return core::Error{"", "spmv: the plan was not made by spmv"};
  built_ = std::any_cast<Placement>(plan.mapping);
  try {
    return build_sparse_program(p_, *s, m);
  } catch (const layout::LayoutError& e) {
    return core::Error{"", e.what()};
  }
}

const program::CheckedProgram* SparseInstance::checked_program(const Plan& plan) const {
  const SparsePlacement* s = placement_of(plan);
  return s && s == checked_for_.lock().get() ? checked_.get() : nullptr;
}

std::vector<Problem::Phase> SparseInstance::phases(const Plan&, const program::Program& program,
                                                   const machine::MachineConfig&) const {
  std::vector<Phase> out;
  const std::string x = sparse_x_name(p_), y = sparse_y_name(p_);
  // With passes, each pass's movements on their own: "A.pass0", "x.pass0", ...
  std::uint64_t loads_of_a = 0;
  for (const program::Instr& instr : program.instrs)
    if (const auto* l = std::get_if<program::Load>(&instr); l && l->tensor == "A") ++loads_of_a;
  const int width = static_cast<int>(fmt::to_string(loads_of_a - 1).size());  // pass01 sorts before pass10
  std::uint64_t pass = 0;
  for (std::size_t i = 0; i < program.instrs.size(); ++i) {
    const program::Instr& instr = program.instrs[i];
    const auto* l = std::get_if<program::Load>(&instr);
    const auto* s = std::get_if<program::Store>(&instr);
    const std::string tensor = l ? l->tensor : s ? s->tensor : "";
    if (tensor != "A" && tensor != x && tensor != y) continue;
    if (tensor == "A" && i > 0) ++pass;
    out.push_back({loads_of_a > 1 ? fmt::format("{}.pass{:0{}}", tensor, pass, width) : tensor, i, i + 1,
                   std::nullopt});
  }
  return out;
}

DramImage SparseInstance::inputs() const {
  // A packed as the plan last built places it (a plan file's or a tuner's may differ from the
  // options'); else as the options place it (nothing when they cannot: plan() says why).
  if (built_) return sparse_inputs(p_, *built_);
  auto s = placement(machine_);
  return s ? sparse_inputs(p_, *s.value()) : DramImage{};
}

std::vector<std::string> SparseInstance::input_tensors() const {
  std::vector<std::string> names{"A", sparse_x_name(p_)};
  if (!p_.bias.empty()) names.push_back("bias");
  return names;
}

Result<DramImage> SparseInstance::reference() const {
  return DramImage{{output_name(), sparse_reference(p_)}};
}

std::vector<OutputArray> SparseInstance::outputs() const {
  if (p_.spmm) return {{"C", core::DType::kInt8, {p_.a.rows, p_.n}, std::nullopt}};
  return {{"y", core::DType::kInt8, {p_.a.rows}, std::nullopt}};
}

std::string SparseInstance::output_name() const { return sparse_y_name(p_); }

void SparseInstance::add_report_fields(const Plan& plan, const machine::MachineConfig& m,
                                       report::RunStats& stats) const {
  const SparsePlacement* s = placement_of(plan);
  if (!s) return;
  stats.info["plan"] = plan.description;
  stats.info["matrix"] = p_.matrix;
  stats.info["encoding"] = sparse::print_encoding(s->choice.encoding);
  stats.info["partition"] = sparse::partition_name(s->choice.partition);
  stats.extra["rows"] = p_.a.rows;
  stats.extra["cols"] = p_.a.cols;
  stats.extra["n"] = p_.n;
  report::SparseStats sp;
  sp.nnz = p_.nonzeros;
  sp.pes = s->pes;
  sp.grid_rows = s->grid_rows, sp.grid_cols = s->grid_cols;
  // Per PE, over its passes.
  const timing::CostModel cost(m);
  sp.pe_nnz.assign(s->pes, 0);
  sp.pe_entries.assign(s->pes, 0);
  std::vector<std::uint64_t> items(s->pes, 0);
  for (const PeShare& share : s->shares) {
    sp.pe_nnz[share.pe] += share.nonzeros;
    sp.pe_entries[share.pe] += share.work.entries;
    items[share.pe] += cost.sparse_items(share.work.entries, share.work.segments, share.work.visits, p_.n);
  }
  for (std::uint64_t n : items) sp.pe_items_max = std::max(sp.pe_items_max, n), sp.pe_items_total += n;
  stats.extra["passes"] = s->passes;
  for (std::size_t l = 0; l < s->choice.encoding.levels.size(); ++l) {
    sp.storage_bytes.emplace_back(fmt::format("pos[{}]", l), s->storage_bytes[2 * l]);
    sp.storage_bytes.emplace_back(fmt::format("crd[{}]", l), s->storage_bytes[2 * l + 1]);
  }
  sp.storage_bytes.emplace_back("values", s->storage_bytes.back());
  stats.sparse = std::move(sp);
}

}  // namespace treesim::kernels
