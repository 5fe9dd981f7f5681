// Runs a program on the board: every instruction does its functional work on the real bytes in the
// LMs and DRAM, waits for the data it reads (scoreboard), occupies the resources it uses for the
// time the machine file gives, and is counted. The board's driver calls advance() as simulated time
// moves.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/board.h"
#include "sim/layout/loader_plan.h"
#include "sim/program/instruction.h"
#include "sim/report/run_stats.h"
#include "sim/timing/resources.h"
#include "sim/timing/scoreboard.h"
#include "sim/trace/vcd_trace.h"

namespace treesim::models {

// A program that cannot run on this machine: what() is one line naming the instruction.
class SimError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct InstrTiming {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
};

class Executor {
 public:
  // `dram` holds the program's tensors by name (row-major bytes); tensors not in it start as
  // zeros and count as never written. Checks the whole program first (tensors, layouts, LM
  // ranges, levels, requant parameters) and throws SimError on the first problem.
  Executor(Board& board, const program::Program& program,
           std::map<std::string, std::vector<std::uint8_t>> dram, bool trace);

  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs what is due at cycle `now` and returns the cycle at which to be called next, or nullopt
  // once every instruction has completed (Board::set_job).
  std::optional<std::uint64_t> advance(std::uint64_t now);

  // Counters of the whole run, or of instructions [first, last) (cycles = their last completion).
  report::RunStats stats() const;
  report::RunStats stats(std::size_t first, std::size_t last) const;
  const std::vector<InstrTiming>& timings() const { return timings_; }
  const std::vector<std::uint8_t>& dram(const std::string& tensor) const { return dram_.at(tensor); }
  const trace::VcdTrace& trace() const { return trace_; }

 private:
  struct Prepared;
  // What one instruction reads, writes, costs and moves.
  struct Planned {
    std::vector<timing::Range> reads, writes;
    timing::Cost cost;
    std::vector<report::LinkStats> traffic;  // per level
    std::uint64_t dram_read = 0, dram_write = 0;
    std::uint64_t macs = 0, dpt_bytes = 0, requant_values = 0, copy_bytes = 0, lm_bytes = 0;
  };
  // Checks everything that can be checked before running (tensors, layouts, LM ranges, levels,
  // requant parameters); throws SimError.
  void prepare();
  Planned plan(std::size_t index) const;
  void plan_transfer(const layout::TrafficPlan& plan, bool down, Planned& p) const;
  template <typename Op>
  void plan_collective(std::size_t index, const Op& op, Planned& p) const;
  // Decides when instruction next_ runs (checks, scoreboard, resources, trace), then does its
  // functional work.
  void schedule_next();
  void perform_next();
  void perform(std::size_t index);
  template <typename Op>
  void perform_collective(std::size_t index, const Op& op);
  void record_trace(std::size_t index, const Planned& p, const timing::Scheduled& when);
  [[noreturn]] void fail(std::size_t index, const std::string& message) const;
  std::uint32_t space_of(const std::string& tensor) const;
  const program::TensorDecl& tensor(std::size_t index, const std::string& name) const;
  int level_index(std::size_t index, program::Level level) const;

  Board& board_;
  const machine::MachineConfig& config_;
  const program::Program& program_;
  std::map<std::string, std::vector<std::uint8_t>> dram_;
  std::vector<Prepared> prepared_;
  timing::Resources resources_;
  timing::Scoreboard scoreboard_;
  std::vector<Planned> records_;  // per instruction, once scheduled
  MacScratch mac_scratch_;
  std::size_t next_ = 0;   // the next instruction to perform
  bool pending_ = false;   // next_ is scheduled but not yet performed
  std::uint64_t end_ = 0;  // the latest completion so far
  std::vector<InstrTiming> timings_;
  bool tracing_;
  trace::VcdTrace trace_;
  std::vector<trace::VcdTrace::SignalId> busy_signal_, bytes_signal_;  // per resource
  trace::VcdTrace::SignalId board_instr_ = 0, pe_instr_ = 0;
};

}  // namespace treesim::models
