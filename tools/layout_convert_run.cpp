#include "tools/layout_convert_run.h"

#include <fmt/format.h>

#include <cstring>

#include "sim/program/instruction.h"
#include "sim/timing/cost_model.h"
#include "tools/cli.h"

namespace treesim::tools {
namespace {

// Checks every element slot (every replica) of `to` at LM offset `base` against the tensor, by the
// layout's forward map (BoundLayout::locate_into), not by the loader's walk.
void check_image(const layout::BoundLayout& to, const host::LmView& lms, std::uint64_t base,
                 const std::vector<std::uint8_t>& tensor, ConversionRun& out) {
  const std::size_t eb = to.element_bytes(), rank = to.rank();
  std::vector<std::uint64_t> index(rank, 0);
  layout::Location loc;
  for (std::uint64_t e = 0; e < to.logical_elements(); ++e) {
    for (std::uint64_t r = 0; r < to.replicas(); ++r) {
      to.locate_into(index.data(), loc, r);
      const std::uint8_t* slot =
          lms.lm(to.pe_id(loc.units)) + base + (loc.addr * to.words_per_address() + loc.lane) * eb;
      ++out.slots_checked;
      if (std::memcmp(slot, tensor.data() + e * eb, eb) == 0) continue;
      if (out.verify.mismatches++ == 0)
        out.verify.first_mismatch =
            fmt::format("element {} replica {} in PE {} at LM address {}", layout::shape_string(index), r,
                        to.pe_id(loc.units), loc.addr);
    }
    for (std::size_t d = rank; d-- > 0;) {  // the next index, row-major
      if (++index[d] < to.shape()[d]) break;
      index[d] = 0;
    }
  }
  out.verify.ok = out.verify.mismatches == 0;
}

}  // namespace

ConversionRun simulate_conversion(const machine::MachineConfig& machine, core::DType type,
                                  const layout::BoundLayout& from, const layout::BoundLayout& to,
                                  const layout::ConversionPlan& plan, std::uint64_t seed,
                                  const RunOptions& run, OutputSet& outputs) {
  if (!core::is_integer(type) || type == core::DType::kInt16)
    throw CliError(
        fmt::format("--run: expected --dtype int8, uint8 or int32, got {}", core::dtype_name(type)));
  program::TensorDecl tensor{"T", from.shape(), type};
  // The destination right after the source, 64-byte aligned.
  const std::uint64_t dst = (from.footprint_bytes_per_unit() + 63) / 64 * 64;
  program::Load load;
  load.tensor = "T";
  load.layout = from.layout();
  program::Convert convert;
  convert.tensor = "T";
  convert.from = from.layout();
  convert.to = to.layout();
  convert.dst = dst;
  program::Program p;
  p.tensors = {tensor};
  p.instrs = {load, convert};
  const std::vector<std::uint8_t> input = random_bytes(tensor.bytes(), seed);
  models::SimulationOptions sim = run.simulation(outputs);
  sim.kernel = "convert";
  sim.phases = {{1, 2}};
  ConversionRun out;
  const models::SimulationResult r =
      run_simulation(machine, run.config(), p, {{"T", input}}, sim, [&](models::Simulation& s) {
        if (run.timing_only) return;
        s.board().pe_array().materialize_lms();
        check_image(to, s.board().pe_array().lms(), dst, input, out);
      });
  out.cycles = r.timings[1].end - r.timings[1].start;
  out.estimate_cycles = timing::CostModel(machine).conversion(plan, core::dtype_bytes(type)).duration();
  report::RunStats stats = r.phases[0];
  stats.kernel = "convert";
  stats.extra["estimate_cycles"] = out.estimate_cycles;
  if (!run.timing_only) stats.verify = out.verify;
  RunOptions report_only = run;  // the command prints its own summary
  report_only.quiet = true;
  finish_run(machine, stats, report_only, outputs);
  return out;
}

}  // namespace treesim::tools
