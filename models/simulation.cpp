#include "models/simulation.h"

#include <chrono>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "models/channel_names.h"
#include "models/clock.h"
#include "models/dram_placement.h"

#if defined(__SANITIZE_ADDRESS__)
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>
#endif
#include "sim/io/atomic_file.h"
#include "sim/program/checked_program.h"
#include "sim/trace/gtkw_file.h"
#include "sim/trace/trace_json.h"
#include "sim/trace/vcd_trace.h"

namespace treesim::models {
namespace {

using Clock = std::chrono::steady_clock;

// Debug transport (no time, no counters) of `len` bytes at `addr` of channel `channel`, in pieces a
// payload can hold.
void debug_access(Board& board, std::uint64_t channel, bool write, std::uint64_t addr, std::uint8_t* data,
                  std::uint64_t len) {
  constexpr std::uint64_t kPiece = 1u << 30;
  for (std::uint64_t done = 0; done < len; done += kPiece) {
    const std::uint64_t n = std::min(kPiece, len - done);
    tlm::tlm_generic_payload t;
    t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(addr + done);
    t.set_data_ptr(data + done);
    t.set_data_length(static_cast<unsigned int>(n));
    t.set_streaming_width(static_cast<unsigned int>(n));
    if (board.dram_sockets[channel]->transport_dbg(t) != n)
      throw SimError(fmt::format("DRAM debug {} of {} bytes at address {} (channel {}) failed",
                                 write ? "write" : "read", n, addr + done, channel));
  }
}

// Debug transport of a tensor's bytes [offset, offset + len), wherever its pieces lie.
void debug_tensor(Board& board, const DramMap& map, std::size_t tensor, bool write, std::uint64_t offset,
                  std::uint8_t* data, std::uint64_t len) {
  for (std::uint64_t done = 0; done < len;) {
    const DramMap::Span s = map.at(tensor, offset + done, len - done);
    debug_access(board, s.channel, write, s.address, data + done, s.bytes);
    done += s.bytes;
  }
}

// Back on the main stack after SystemC ran its threads: SystemC's QuickThreads coroutines tell
// AddressSanitizer about each stack switch, but give the main context an empty stack, so ASan takes
// the main thread's stack to be [0, 0) from then on and reports false stack-buffer-overflows after
// any exception thrown there. Telling it the main stack's real bounds puts that right. Nothing to do
// without ASan.
void main_stack_is_current() {
#if defined(__SANITIZE_ADDRESS__)
  pthread_attr_t attr;
  void* bottom = nullptr;
  std::size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return;
  pthread_attr_getstack(&attr, &bottom, &size);
  pthread_attr_destroy(&attr);
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, bottom, size);
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
}

// Writes the traces `options` asks for from the run's log.
void write_traces(trace::TraceLog& log, const SimulationOptions& options, const machine::MachineConfig& m,
                  const topology::Topology& topo, std::uint64_t end_cycle) {
  log.end_cycle = end_cycle;
  log.machine = m.name;
  log.kernel = options.kernel;
  if (!options.vcd_path.empty()) {
    std::ostringstream text;
    trace::write_vcd(text, log, topo, options.vcd_filter);
    io::write_file_atomically(options.vcd_path, text.str());
  }
  if (!options.gtkw_path.empty()) {
    std::ostringstream text;
    trace::write_gtkw(text, options.vcd_name, log, topo, options.vcd_filter);
    io::write_file_atomically(options.gtkw_path, text.str());
  }
  if (!options.json_path.empty()) {
    std::ostringstream text;
    trace::write_trace_json(text, log, topo, options.vcd_filter);
    io::write_file_atomically(options.json_path, text.str());
  }
}

// Starts every module's run at `origin`, traced into `log` when given (then `topo` names the units).
void start_run(Board& board, const std::vector<std::unique_ptr<Dram>>& drams, std::uint64_t origin,
               trace::TraceLog* log, const topology::Topology* topo) {
  const machine::MachineConfig& m = board.config();
  for (const auto& dram : drams) dram->start_run(origin, log);
  for (std::size_t l = 0; l < m.levels.size(); ++l) {
    // A level's ports are traced in their parents: the units of level l − 1, the board for level 0.
    const topology::Unit first = topo ? topo->unit(static_cast<int>(l) - 1, 0) : 0;
    board.level(l).start_run(origin, log, first);
  }
  const int pe_level = static_cast<int>(m.levels.size()) - 1;
  board.pe_array().start_run(origin, log, topo ? topo->unit(pe_level, 0) : 0, pe_level);
}

}  // namespace

Simulation::Simulation(const machine::MachineConfig& machine, SimulationConfig config)
    : machine_(machine), config_(config) {
  const auto t0 = Clock::now();
  BoardConfig board;
  board.quantum_cycles = config.quantum_cycles.value_or(machine_.quantum_cycles);
  board.threads = config.threads ? config.threads : host::LanePool::usable_cores();
  board_ = std::make_unique<Board>("board", machine_, board);
  if (config_.bind_dram) {
    const std::size_t channels = machine_.dram_channels();
    for (std::size_t c = 0; c < channels; ++c) {
      drams_.push_back(std::make_unique<Dram>(channel_name("dram", c, channels).c_str(), machine_));
      board_->dram_sockets[c].bind(drams_.back()->socket);
    }
  }
  elaboration_seconds_ = std::chrono::duration<double>(Clock::now() - t0).count();
}

Simulation::~Simulation() = default;

void Simulation::set_threads(unsigned threads) {
  board_->pe_array().set_threads(threads ? threads : host::LanePool::usable_cores());
}

const topology::Topology& Simulation::topology() {
  if (!topo_) topo_ = std::make_unique<topology::Topology>(machine_);
  return *topo_;
}

SimulationResult Simulation::run(const program::Program& program, const DramImage& inputs,
                                 const SimulationOptions& options) {
  const auto t0 = Clock::now();
  const program::CheckedProgram checked = program::check_program(program, machine_);
  if (!checked.ok()) throw SimError(checked.errors.front().message());
  const double check_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  SimulationResult result = run(program, checked, inputs, options);
  result.simulation_seconds += check_seconds;
  return result;
}

SimulationResult Simulation::run(const program::Program& program, const program::CheckedProgram& checked,
                                 const DramImage& inputs, const SimulationOptions& options) {
  const auto t0 = Clock::now();
  // The first run ends elaboration (a caller binds its own DRAM target before it): ports and
  // sockets are resolved, and the sequencer's thread starts and waits for a program.
  if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) {
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    main_stack_is_current();
  }
  SimulationResult result;
  result.elaboration_seconds = elaboration_seconds_;
  if (!checked.ok()) throw SimError(checked.errors.front().message());
  if (checked.instrs.size() != program.instrs.size())
    throw SimError(fmt::format("the checked program has {} instructions, the program {}: not its check",
                               checked.instrs.size(), program.instrs.size()));
  for (const auto& [name, bytes] : inputs) {
    const program::TensorDecl* t = program.find_tensor(name);
    if (!t) throw SimError(fmt::format("input '{}' is not a tensor of the program", name));
    if (options.functional && bytes.size() != t->bytes())
      throw SimError(fmt::format("input '{}' has {} bytes, the program declares {} ({} × {})", name,
                                 bytes.size(), t->bytes(), t->elements(), core::dtype_name(t->dtype)));
  }
  // The DRAM address map: tensors one after another, 64-byte aligned, spread over the channels by
  // the machine's placement (the checker bounded the total).
  const DramMap map(machine_, place_tensors(machine_, program, checked));
  std::vector<timing::Range> written;
  const std::uint64_t end = map.bytes_per_channel();
  if (end > machine_.dram.bytes)
    throw SimError(fmt::format("the program's tensors need {} bytes of DRAM{}, the machine has {}", end,
                               map.channels() > 1 ? " per channel" : "", machine_.dram.bytes));
  if (options.functional) {
    // The pages this run fills, mapped up front (host_pages.h): the DRAM image, and the LM ranges
    // that compute instructions write, which every PE runs. Loads map their pages on first write:
    // a broadcast load writes only one PE of each group that shares its bytes.
    for (const auto& dram : drams_) dram->reserve(end);
    std::vector<timing::Range> every_pe;
    for (const program::PreparedInstr& in : checked.instrs)
      for (const timing::Range& w : in.writes)
        if (!in.transfer && w.space == program::kLmSpace) every_pe.push_back(w);
    board_->pe_array().map_lms(every_pe);
  }
  for (std::size_t i = 0; i < program.tensors.size(); ++i) {
    const program::TensorDecl& t = program.tensors[i];
    auto in = inputs.find(t.name);
    if (in != inputs.end()) written.push_back({program::dram_space(i), 0, t.bytes()});
    if (!options.functional) {
      // Timing only: nothing is written; the inputs only say which tensors hold data.
    } else if (in != inputs.end()) {
      // A write only reads the payload's bytes.
      debug_tensor(*board_, map, i, true, 0, const_cast<std::uint8_t*>(in->second.data()), in->second.size());
    } else {
      // In 64 KiB pieces: a buffer the size of the tensor would be fresh memory to fault in.
      const std::vector<std::uint8_t> zeros(std::min<std::uint64_t>(t.bytes(), 1 << 16), 0);
      for (std::uint64_t done = 0; done < t.bytes(); done += zeros.size())
        debug_tensor(*board_, map, i, true, done, const_cast<std::uint8_t*>(zeros.data()),
                     std::min<std::uint64_t>(zeros.size(), t.bytes() - done));
    }
  }
  std::unique_ptr<trace::TraceLog> vcd;
  if (!options.vcd_path.empty() || !options.json_path.empty()) vcd = std::make_unique<trace::TraceLog>();
  const std::uint64_t origin = time_to_cycles(sc_core::sc_time_stamp());
  start_run(*board_, drams_, origin, vcd.get(), vcd ? &topology() : nullptr);
  // The log dies with this run, however it ends: no module may keep pointing at it.
  struct Detach {
    Board& board;
    const std::vector<std::unique_ptr<Dram>>& drams;
    ~Detach() {
      for (std::size_t l = 0; l < board.config().levels.size(); ++l) board.level(l).detach_log();
      board.pe_array().detach_log();
      for (const auto& dram : drams) dram->detach_log();
    }
  } detach{*board_, drams_};
  Sequencer& seq = board_->sequencer();
  seq.arm(program, checked, map, written, {options.functional, vcd.get()});
  sc_core::sc_start();
  main_stack_is_current();
  const std::vector<InstrRecord>& records = seq.records();
  result.syncs = seq.syncs();
  result.stats = collect_stats(machine_, program, records, 0, records.size());
  for (const auto& [first, last] : options.phases)
    result.phases.push_back(collect_stats(machine_, program, records, first, last));
  result.stats.functional = options.functional;
  for (report::RunStats& phase : result.phases) phase.functional = options.functional;
  for (const InstrRecord& r : records) result.timings.push_back(r.timing);
  // Per-port and per-PE counters of the whole run, from the modules that own them.
  for (std::size_t l = 0; l < machine_.levels.size(); ++l) {
    const TreeLevel& level = board_->level(l);
    report::LevelPorts ports;
    for (std::uint64_t p = 0; p < level.parents(); ++p) {
      ports.down.push_back({level.ports(timing::Direction::kDown).busy_cycles(p),
                            level.ports(timing::Direction::kDown).work(p)});
      ports.up.push_back(
          {level.ports(timing::Direction::kUp).busy_cycles(p), level.ports(timing::Direction::kUp).work(p)});
    }
    result.stats.ports.push_back(std::move(ports));
  }
  // Per channel, and the banked model's commands, from the DRAM targets that own them.
  if (drams_.size() > 1)
    for (const auto& dram : drams_)
      result.stats.dram_channels.push_back(
          {dram->read_bytes(), dram->write_bytes(), dram->port().busy_cycles(0)});
  for (const auto& dram : drams_) {
    if (!dram->banks()) continue;
    if (!result.stats.dram_banks) result.stats.dram_banks.emplace();
    *result.stats.dram_banks += dram->banks()->counters();
  }
  const PeArray& array = board_->pe_array();
  for (timing::Unit u : timing::machine_units(machine_)) {
    auto& v = result.stats.pe_unit_busy_cycles[timing::unit_name(u)];
    v.resize(array.count());
    for (std::uint64_t p = 0; p < array.count(); ++p) v[p] = array.unit(u).busy_cycles(p);
  }
  std::vector<bool> has_store(program.tensors.size(), false);
  for (std::size_t k = 0; k < program.instrs.size(); ++k)
    if (std::holds_alternative<program::Store>(program.instrs[k]))
      has_store[checked.instrs[k].transfer->tensor] = true;
  std::vector<bool> stored = has_store;
  if (!options.read_back_stored_only) stored.assign(program.tensors.size(), true);
  for (std::size_t i = 0; i < program.tensors.size() && options.functional; ++i) {
    if (!stored[i]) continue;
    std::vector<std::uint8_t>& bytes = result.dram[program.tensors[i].name];
    bytes.resize(program.tensors[i].bytes());
    debug_tensor(*board_, map, i, false, 0, bytes.data(), bytes.size());
  }
  for (const auto& [name, bytes] : seq.lm_reads()) {
    const program::TensorDecl* t = program.find_tensor(name);
    if (t && !has_store[static_cast<std::size_t>(t - program.tensors.data())]) result.lm_reads[name] = bytes;
  }
  if (vcd) write_traces(*vcd, options, machine_, topology(), result.stats.cycles);
  result.simulation_seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return result;
}

SimulationResult simulate(const machine::MachineConfig& machine, const program::Program& program,
                          const DramImage& inputs, const SimulationOptions& options,
                          SimulationConfig config) {
  Simulation sim(machine, config);
  return sim.run(program, inputs, options);
}

}  // namespace treesim::models
