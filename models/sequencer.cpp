#include "models/sequencer.h"

#include <algorithm>
#include <map>
#include <string>

#include <fmt/format.h>

#include "models/board.h"
#include "models/clock.h"
#include "sim/layout/tensor_layout.h"
#include "sim/program/instr_label.h"

namespace treesim::models {

std::size_t resource_count(const machine::MachineConfig& m) { return 5 + 2 * m.levels.size(); }

std::string resource_name(const machine::MachineConfig& m, std::size_t id) {
  if (id == 0) return "dram";
  if (id < 5) return timing::unit_name(timing::kUnits[id - 1]);
  const std::size_t l = (id - 5) / 2;
  return m.levels[l].name + ((id - 5) % 2 ? ".up" : ".down");
}

Sequencer::Sequencer(const sc_core::sc_module_name& name, Board& board)
    : sc_core::sc_module(name), board_(board), cost_(board.config()) {
  SC_METHOD(issue);
  sensitive << start_;
  dont_initialize();
}

void Sequencer::arm(const program::Program& program, const program::CheckedProgram& checked,
                    const DramMap& dram, const std::vector<timing::Range>& written, trace::TraceLog* trace,
                    bool functional) {
  functional_ = functional;
  program_ = &program;
  checked_ = &checked;
  dram_ = &dram;
  trace_ = trace;
  error_ = nullptr;
  records_.assign(program.instrs.size(), {});
  dead_requant_ = functional ? dead_requant_outputs(program, checked, board_.pes().size())
                             : std::vector<std::vector<bool>>{};
  scoreboard_ = timing::Scoreboard();
  for (const timing::Range& w : written) scoreboard_.mark_written(w);
  origin_ = end_ = time_to_cycles(sc_core::sc_time_stamp());
  ++run_id_;
  // DRAM's access latency: what a target declares in its DMI descriptor (none: all in its delay).
  tlm::tlm_generic_payload probe;
  tlm::tlm_dmi dmi;
  probe.set_address(0);
  probe.set_command(tlm::TLM_READ_COMMAND);
  dram_read_latency_ = dram_write_latency_ = 0;
  dmi_valid_ = board_.dram_socket->get_direct_mem_ptr(probe, dmi);
  dmi_ = dmi;
  if (dmi_valid_) {
    dram_read_latency_ = time_to_cycles(dmi.get_read_latency());
    dram_write_latency_ = time_to_cycles(dmi.get_write_latency());
  }
  if (trace_) trace_->instructions().assign(program.instrs.size(), {});
  start_.notify(sc_core::SC_ZERO_TIME);
}

const std::vector<InstrRecord>& Sequencer::records() const {
  if (error_) std::rethrow_exception(error_);
  return records_;
}

void Sequencer::fail(std::size_t index, const std::string& message) const {
  throw SimError(
      fmt::format("instruction {} ({}): {}", index, program::kind_name(program_->instrs[index]), message));
}

void Sequencer::issue() {
  if (!program_) return;
  const std::uint64_t now = time_to_cycles(sc_core::sc_time_stamp());
  if (now > origin_ || program_->instrs.empty()) {  // the synchronisation at the end of the run
    program_ = nullptr;
    return;
  }
  // An exception escaping a SystemC process ends the whole simulation with a report: keep it.
  try {
    for (std::size_t i = 0; i < program_->instrs.size(); ++i) run_instruction(i);
  } catch (...) {
    error_ = std::current_exception();
    program_ = nullptr;
    return;
  }
  if (end_ > now)
    next_trigger(cycles_to_time(end_ - now));
  else
    program_ = nullptr;
}

void Sequencer::unshare(std::size_t i) {
  const program::PreparedInstr& prep = checked_->instrs[i];
  const auto& pes = board_.pes();
  std::visit(
      [&](const auto& op) {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, program::Load>) {
          // scatter_block replaces or makes real what the load overwrites.
        } else if constexpr (std::is_same_v<T, program::Mac> || std::is_same_v<T, program::TernaryMac>) {
          // The MAC reads whole shared operands from their sources; C must be real.
          std::uint64_t b = 0;
          if constexpr (std::is_same_v<T, program::Mac>)
            b = op.b;
          else
            b = op.w;
          shared_.materialize(prep.writes, pes);
          shared_.materialize_partial(op.a, op.a + op.m * op.k * core::dtype_bytes(op.a_dtype), pes);
          shared_.materialize_partial(b, b + op.k * op.n, pes);
        } else if constexpr (std::is_same_v<T, program::DptDecode>) {
          // The decoder reads shared packed bytes from their source PE, and its weights are then
          // shared the same way (compute()); every PE writes the whole output range.
          const std::uint64_t hi =
              op.dst + op.bytes * static_cast<std::uint64_t>(numeric::trits_per_byte(op.codec));
          if (op.dst < op.src + op.bytes && op.src < hi) {
            shared_.materialize(prep.reads, pes);
            shared_.materialize(prep.writes, pes);
          } else {
            shared_.materialize_partial(op.src, op.src + op.bytes, pes);
            shared_.overwrite(op.dst, hi, std::vector<bool>(pes.size(), true), pes);
          }
        } else {
          shared_.materialize(prep.reads, pes);
          shared_.materialize(prep.writes, pes);
        }
      },
      program_->instrs[i]);
}

void Sequencer::run_instruction(std::size_t i) {
  const program::PreparedInstr& prep = checked_->instrs[i];
  for (const timing::Range& r : prep.reads) {
    if (scoreboard_.written(r)) continue;
    if (r.space == program::kLmSpace)
      fail(i, fmt::format("reads LM [{}, {}) which no earlier instruction wrote", r.lo, r.hi));
    fail(i,
         fmt::format("reads DRAM tensor '{}' which holds no data (give it as an input or store to it first)",
                     program_->tensors[r.space - 1].name));
  }
  std::size_t waits_for = SIZE_MAX;
  const std::uint64_t ready = std::max(origin_, scoreboard_.ready(prep.reads, prep.writes, &waits_for));
  if (trace_) trace_->set_instruction(i);
  InstrRecord& r = records_[i];
  r.traffic.assign(board_.config().levels.size(), {});
  if (functional_ && !shared_.empty()) unshare(i);
  std::visit(
      [&](const auto& op) {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, program::Load>)
          load(i, op, ready, r);
        else if constexpr (std::is_same_v<T, program::Store>)
          store(i, op, ready, r);
        else if constexpr (program::kCollective<T>)
          collective(i, op, ready, r);
        else
          compute(i, ready, r);
      },
      program_->instrs[i]);
  scoreboard_.commit(prep.reads, prep.writes, r.timing.end, i);
  end_ = std::max(end_, r.timing.end);
  for (const timing::Range& w : prep.writes)
    if (w.space == program::kLmSpace) r.lm_peak = std::max(r.lm_peak, w.hi);
  if (r.lm_bytes == 0) {
    for (const auto* list : {&prep.reads, &prep.writes})
      for (const timing::Range& x : *list)
        if (x.space == program::kLmSpace) r.lm_bytes += (x.hi - x.lo) * board_.config().pe_count();
  }
  r.timing.start -= origin_;
  r.timing.end -= origin_;
  if (trace_) log_span(i, ready, waits_for, r);
}

void Sequencer::log_span(std::size_t i, std::uint64_t ready, std::size_t waits_for, const InstrRecord& r) {
  std::vector<std::string> levels;
  for (const auto& l : board_.config().levels) levels.push_back(l.name);
  trace::InstrSpan& s = trace_->instructions()[i];
  const program::Instr& instr = program_->instrs[i];
  s.label = program::instr_label(*program_, i, levels);
  s.kind = program::kind_name(instr);
  s.ready = ready - origin_;
  s.start = r.timing.start;
  s.end = r.timing.end;
  if (waits_for != SIZE_MAX && ready > origin_) s.waits_for = waits_for;
  auto number = [&](const char* name, std::uint64_t v) {
    if (v) s.numbers[name] = v;
  };
  number("dram_read_bytes", r.dram_read);
  number("dram_write_bytes", r.dram_write);
  number("macs", r.macs);
  number("dpt_bytes", r.dpt_bytes);
  number("requant_values", r.requant_values);
  number("copy_bytes", r.copy_bytes);
  number("lm_bytes", r.lm_bytes);
  std::visit(
      [&](const auto& op) {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, program::Load> || std::is_same_v<T, program::Store>) {
          s.texts["tensor"] = op.tensor;
          s.texts["layout"] = layout::to_string(op.layout);
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

report::RunStats collect_stats(const machine::MachineConfig& m, const program::Program& program,
                               const std::vector<InstrRecord>& records, std::size_t first, std::size_t last) {
  report::RunStats s;
  s.levels.resize(m.levels.size());
  for (const auto& kind : program::kind_names()) s.instructions[kind];
  std::vector<std::uint64_t> busy(resource_count(m), 0);
  std::map<std::string, std::vector<InstrTiming>> intervals;  // per kind, for its span
  for (std::size_t i = first; i < last && i < records.size(); ++i) {
    const InstrRecord& r = records[i];
    s.cycles = std::max(s.cycles, r.timing.end);
    const std::string kind = program::kind_name(program.instrs[i]);
    auto& ks = s.instructions[kind];
    ks.count += 1;
    std::uint64_t longest = 0;
    for (const auto& [id, cycles] : r.busy) {
      busy[id] += cycles;
      longest = std::max(longest, cycles);
    }
    ks.busy_cycles += longest;
    intervals[kind].push_back(r.timing);
    s.dram_read_bytes += r.dram_read;
    s.dram_write_bytes += r.dram_write;
    for (std::size_t l = 0; l < r.traffic.size(); ++l) {
      report::LinkStats& a = s.levels[l];
      const report::LinkStats& t = r.traffic[l];
      a.down_sent_bytes += t.down_sent_bytes;
      a.down_delivered_bytes += t.down_delivered_bytes;
      a.up_sent_bytes += t.up_sent_bytes;
      a.up_delivered_bytes += t.up_delivered_bytes;
      a.down_busiest_port_bytes += t.down_busiest_port_bytes;
      a.up_busiest_port_bytes += t.up_busiest_port_bytes;
    }
    s.macs += r.macs;
    s.dpt_bytes += r.dpt_bytes;
    s.ternary_macs += r.ternary_macs;
    s.sparse_macs += r.sparse_macs;
    s.sparse_items += r.sparse_items;
    s.base3_bytes += r.base3_bytes;
    s.requant_values += r.requant_values;
    s.copy_bytes += r.copy_bytes;
    s.lm_bytes_accessed += r.lm_bytes;
    s.lm_peak_bytes_per_pe = std::max(s.lm_peak_bytes_per_pe, r.lm_peak);
  }
  for (std::size_t id = 0; id < busy.size(); ++id) s.resource_busy_cycles[resource_name(m, id)] = busy[id];
  for (auto& [kind, list] : intervals) s.instructions[kind].span_cycles = union_length(list);
  return s;
}

}  // namespace treesim::models
