#include "models/sequencer.h"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "models/host/dead_requant.h"
#include "models/channel_names.h"
#include "models/clock.h"
#include "sim/layout/tensor_layout.h"
#include "sim/program/instr_label.h"
#include "sim/timing/critical_path.h"

namespace treesim::models {
namespace {

// The sequencer's functional work (MAC packing, layout walks) runs on its thread's stack.
constexpr std::size_t kStackBytes = std::size_t{16} << 20;

}  // namespace

Sequencer::Sequencer(const sc_core::sc_module_name& name, const machine::MachineConfig& machine,
                     std::uint64_t quantum_cycles)
    : sc_core::sc_module(name),
      dram("dram_sockets"),
      levels("levels"),
      pes("pes"),
      machine_(machine),
      cost_(machine),
      keeper_(cycles_to_time(std::max<std::uint64_t>(1, quantum_cycles))) {
  SC_THREAD(issue);
  set_stack_size(kStackBytes);
  const std::size_t channels = machine.dram_channels();
  dram.init(channels, ChannelNamed<tlm_utils::simple_initiator_socket_tagged<Sequencer>>{"dram", channels});
  for (std::size_t c = 0; c < channels; ++c)
    dram[c].register_invalidate_direct_mem_ptr(this, &Sequencer::invalidate_dmi, static_cast<int>(c));
  dmi_.resize(channels);
  dmi_valid_.assign(channels, false);
}

void Sequencer::set_quantum_cycles(std::uint64_t cycles) {
  keeper_.set_quantum(cycles_to_time(std::max<std::uint64_t>(1, cycles)));
}

void Sequencer::arm(const program::Program& program, const program::CheckedProgram& checked,
                    const DramMap& dram_map, const std::vector<timing::Range>& written,
                    IssueOptions options) {
  options_ = options;
  program_ = &program;
  checked_ = &checked;
  dram_map_ = &dram_map;
  error_.reset();
  host_error_ = nullptr;
  syncs_ = 0;
  lm_reads_.clear();
  records_.assign(program.instrs.size(), {});
  dead_requant_ = options.functional ? host::dead_requant_outputs(program, checked, machine_.pe_count())
                                     : std::vector<std::vector<bool>>{};
  scoreboard_ = timing::Scoreboard();
  for (const timing::Range& w : written) scoreboard_.mark_written(w);
  origin_ = end_ = time_to_cycles(sc_core::sc_time_stamp());
  ++run_id_;
  // DRAM's access latency: what a target declares in its DMI descriptor (none: all in its delay).
  // Every channel is the same model; channel 0 speaks for them.
  dram_read_latency_ = dram_write_latency_ = 0;
  for (std::size_t c = 0; c < dram.size(); ++c) {
    tlm::tlm_generic_payload probe;
    tlm::tlm_dmi dmi;
    probe.set_address(0);
    probe.set_command(tlm::TLM_READ_COMMAND);
    dmi_valid_[c] = dram[c]->get_direct_mem_ptr(probe, dmi);
    dmi_[c] = dmi;
  }
  if (dmi_valid_[0]) {
    dram_read_latency_ = time_to_cycles(dmi_[0].get_read_latency());
    dram_write_latency_ = time_to_cycles(dmi_[0].get_write_latency());
  }
  if (options_.trace) options_.trace->instructions().assign(program.instrs.size(), {});
  start_.notify(sc_core::SC_ZERO_TIME);
}

const std::vector<InstrRecord>& Sequencer::records() const {
  if (host_error_) std::rethrow_exception(host_error_);
  if (error_) throw SimError(*error_);
  return records_;
}

void Sequencer::fail(std::size_t index, const std::string& message) {
  if (!error_)
    error_ =
        fmt::format("instruction {} ({}): {}", index, program::kind_name(program_->instrs[index]), message);
}

void Sequencer::issue() {
  for (;;) {
    sc_core::wait(start_);
    // Nothing is expected to throw here (failures are recorded by fail()); should something, an
    // exception escaping a SystemC process would end the whole simulation with a report: keep it.
    try {
      run_program();
    } catch (...) {
      host_error_ = std::current_exception();
    }
    program_ = nullptr;
  }
}

void Sequencer::run_program() {
  keeper_.reset();
  for (std::size_t i = 0; i < program_->instrs.size() && !failed(); ++i) {
    run_instruction(i);
    if (std::exception_ptr e = pes->take_host_error()) host_error_ = e;
  }
  // The run ends when its last instruction completes.
  const std::uint64_t now = time_to_cycles(sc_core::sc_time_stamp());
  if (end_ > now) sc_core::wait(cycles_to_time(end_ - now));
}

void Sequencer::advance_horizon(std::uint64_t cycle) {
  const std::uint64_t now = time_to_cycles(sc_core::sc_time_stamp());
  if (cycle <= now) return;
  keeper_.set(cycles_to_time(cycle - now));
  if (keeper_.need_sync()) {
    keeper_.sync();
    ++syncs_;
  }
}

void Sequencer::run_instruction(std::size_t i) {
  const program::PreparedInstr& prep = checked_->instrs[i];
  for (const timing::Range& r : prep.reads) {
    if (scoreboard_.written(r)) continue;
    if (r.space == program::kLmSpace)
      return fail(i, fmt::format("reads LM [{}, {}) which no earlier instruction wrote", r.lo, r.hi));
    return fail(
        i,
        fmt::format("reads DRAM tensor '{}' which holds no data (give it as an input or store to it first)",
                    program_->tensors[r.space - 1].name));
  }
  std::size_t waits_for = SIZE_MAX;
  const std::uint64_t ready = std::max(origin_, scoreboard_.ready(prep.reads, prep.writes, &waits_for));
  if (options_.trace) options_.trace->set_instruction(i);
  InstrRecord& r = records_[i];
  r.work.levels.assign(machine_.levels.size(), {});
  if (options_.functional) pes->prepare(program_->instrs[i], prep);
  std::visit(
      [&](const auto& op) {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, program::Load>)
          load(i, op, ready, r);
        else if constexpr (std::is_same_v<T, program::Store>)
          store(i, op, ready, r);
        else if constexpr (program::kCollective<T>)
          collective(i, ready, r);
        else if constexpr (std::is_same_v<T, program::Convert>)
          convert(i, op, ready, r);
        else
          compute(i, ready, r);
      },
      program_->instrs[i]);
  if (failed()) return;
  scoreboard_.commit(prep.reads, prep.writes, r.timing.end, i);
  // A store depends on the span of its block, but a tensor that was stored to holds data, as one
  // given as an input does.
  for (const timing::Range& w : prep.writes)
    if (w.space != program::kLmSpace)
      scoreboard_.mark_written({w.space, 0, program_->tensors[w.space - 1].bytes()});
  end_ = std::max(end_, r.timing.end);
  for (const timing::Range& w : prep.writes)
    if (w.space == program::kLmSpace) r.lm_peak = std::max(r.lm_peak, w.hi);
  if (r.work.lm_bytes == 0) {
    for (const auto* list : {&prep.reads, &prep.writes})
      for (const timing::Range& x : *list)
        if (x.space == program::kLmSpace) r.work.lm_bytes += (x.hi - x.lo) * machine_.pe_count();
  }
  r.timing.start -= origin_;
  r.timing.end -= origin_;
  r.ready = ready - origin_;
  if (waits_for != SIZE_MAX && ready > origin_) r.waits_for = waits_for;
  if (options_.trace) log_span(i, ready, waits_for, r);
}

void Sequencer::log_span(std::size_t i, std::uint64_t ready, std::size_t waits_for, const InstrRecord& r) {
  std::vector<std::string> names;
  for (const auto& l : machine_.levels) names.push_back(l.name);
  trace::InstrSpan& s = options_.trace->instructions()[i];
  const program::Instr& instr = program_->instrs[i];
  s.label = program::instr_label(*program_, i, names);
  s.kind = program::kind_name(instr);
  s.ready = ready - origin_;
  s.start = r.timing.start;
  s.end = r.timing.end;
  if (waits_for != SIZE_MAX && ready > origin_) s.waits_for = waits_for;
  auto number = [&](const char* name, std::uint64_t v) {
    if (v) s.numbers[name] = v;
  };
  number("dram_read_bytes", r.work.dram_read_bytes);
  number("dram_write_bytes", r.work.dram_write_bytes);
  number("macs", r.work.macs);
  number("dpt_bytes", r.work.dpt_bytes());
  number("requant_values", r.work.requant_values());
  number("copy_bytes", r.work.copy_bytes());
  number("lm_bytes", r.work.lm_bytes);
  std::visit(
      [&](const auto& op) {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, program::Load> || std::is_same_v<T, program::Store>) {
          s.texts["tensor"] = op.tensor;
          s.texts["layout"] = layout::to_string(op.layout);
        } else if constexpr (std::is_same_v<T, program::Convert>) {
          s.texts["tensor"] = op.tensor;
          s.texts["from"] = layout::to_string(op.from);
          s.texts["to"] = layout::to_string(op.to);
        }
      },
      instr);
}

namespace {

// The length of the union of [start, end) intervals.
std::uint64_t union_length(std::vector<InstrTiming>& list) {
  std::sort(list.begin(), list.end(),
            [](const InstrTiming& a, const InstrTiming& b) { return a.start < b.start; });
  std::uint64_t total = 0, lo = 0, hi = 0;
  for (const InstrTiming& t : list) {
    if (t.start >= hi) {  // disjoint from the run so far: close it
      total += hi - lo;
      lo = t.start, hi = t.end;
    } else {
      hi = std::max(hi, t.end);
    }
  }
  return total + (hi - lo);
}

}  // namespace

namespace {

// The run's critical path from its records. Holds are granted in program order, so the instruction
// that held a resource an instruction waited for is the last one before it on that resource: of
// those on its resources, the one whose hold ended last.
timing::CriticalPath run_critical_path(const machine::MachineConfig& m, const program::Program& program,
                                       const std::vector<InstrRecord>& records) {
  std::vector<timing::PathInstr> path(records.size());
  std::map<std::size_t, std::pair<std::uint64_t, std::size_t>> last_hold;  // resource → (hold end, instr)
  for (std::size_t i = 0; i < records.size(); ++i) {
    const InstrRecord& r = records[i];
    timing::PathInstr& p = path[i];
    p.kind = program::kind_name(program.instrs[i]);
    p.ready = r.ready, p.start = r.timing.start, p.end = r.timing.end;
    p.waits_for = r.waits_for;
    std::uint64_t longest = 0, held_until = 0;
    p.resource = p.kind;  // no resource held: its latency
    for (const auto& [resource, cycles] : r.busy) {
      if (cycles > longest) longest = cycles, p.resource = timing::name(resource, m);
      auto it = last_hold.find(resource.index());
      if (it != last_hold.end() && it->second.first <= p.start && it->second.first >= held_until)
        held_until = it->second.first, p.held_by = it->second.second;
    }
    for (const auto& [resource, cycles] : r.busy) last_hold[resource.index()] = {r.timing.start + cycles, i};
  }
  return timing::critical_path(path);
}

}  // namespace

report::RunStats collect_stats(const machine::MachineConfig& m, const program::Program& program,
                               const std::vector<InstrRecord>& records, std::size_t first, std::size_t last) {
  report::RunStats s;
  s.work.levels.resize(m.levels.size());
  // Every kind the machine can run is listed, at 0 when unused; `vector` only with a vector unit.
  const std::size_t vector_kind = program::Instr(program::Vector{}).index();
  for (std::size_t k = 0; k < program::kind_names().size(); ++k)
    if (k != vector_kind || timing::has_unit(m, timing::Unit::kVector))
      s.instructions[program::kind_names()[k]];
  std::vector<std::uint64_t> busy(timing::Resource::count(m.levels.size()), 0);
  std::map<std::string, std::vector<InstrTiming>> intervals;  // per kind, for its span
  for (std::size_t i = first; i < last && i < records.size(); ++i) {
    const InstrRecord& r = records[i];
    s.cycles = std::max(s.cycles, r.timing.end);
    const std::string kind = program::kind_name(program.instrs[i]);
    auto& ks = s.instructions[kind];
    ks.count += 1;
    std::uint64_t longest = 0;
    for (const auto& [resource, cycles] : r.busy) {
      busy[resource.index()] += cycles;
      longest = std::max(longest, cycles);
    }
    ks.busy_cycles += longest;
    intervals[kind].push_back(r.timing);
    s.work += r.work;
    s.lm_peak_bytes_per_pe = std::max(s.lm_peak_bytes_per_pe, r.lm_peak);
  }
  for (const timing::Resource& res : timing::Resource::all(m))
    s.resource_busy_cycles[timing::name(res, m)] = busy[res.index()];
  for (auto& [kind, list] : intervals) s.instructions[kind].span_cycles = union_length(list);
  if (first == 0 && last >= records.size()) s.critical_path = run_critical_path(m, program, records);
  return s;
}

}  // namespace treesim::models
