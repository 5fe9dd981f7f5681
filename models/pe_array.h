// Every PE of the machine, as lanes of one module: MN-Core's PEs run one instruction stream in
// lock step and the machine file gives one PE type, so the PEs are an array, as gem5 keeps a
// wavefront's lanes in vectors. It owns every PE's local memory (one arena, PE p's LM at p · LM
// size, zero pages until written) and its four units — MAC array, DPT decoder, requant, copy — as
// lanes with rate, latency, busy timeline and counters.
//
// step() times a lock-step instruction: every PE holds its unit for its own work (the cost model's
// closed form), all start when the last of them is free, and the step ends when the slowest PE's
// result is ready. While the lanes agree a step is O(1); unequal work (sparse walks) stays per lane.
// The functional operations work on every PE's LM; their lanes are independent, so they run on
// the lane pool's host threads with results that do not depend on the thread count.
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/host/lane_pool.h"
#include "models/host/lm_replicas.h"
#include "models/host/lm_view.h"
#include "models/host/mac_batch.h"
#include "models/lanes.h"
#include "sim/layout/slots.h"
#include "sim/numeric/requant.h"
#include "sim/program/checked_program.h"
#include "sim/program/instruction.h"
#include "sim/sparse/pe_block.h"
#include "sim/timing/cost_model.h"

namespace treesim::models {

// When a lock-step step held its units: all start at `start`; the slowest PE's result is ready at
// `end`; `busy` is the slowest PE's unit cycles (0: no PE had work).
struct StepTime {
  std::uint64_t start = 0, end = 0, busy = 0;
};

// A functional operation that failed on one PE: the first such PE (the lowest id), and why.
struct LaneError {
  std::uint64_t pe = 0;
  std::string message;
};

class PeArrayIf : public virtual sc_core::sc_interface {
 public:
  // ---- timing ----
  // Every PE does `work` items on `unit`'s datapath `path`. O(1) while the lanes agree.
  virtual StepTime step(timing::Unit unit, std::uint64_t work, std::uint64_t ready,
                        timing::Path path = timing::Path::kDefault) = 0;
  // Every PE holds `unit` for `t` (a closed form the cost model gave, as a vector operation's, whose
  // latency depends on the operation), counting `work` items.
  virtual StepTime step_time(timing::Unit unit, const timing::UnitTime& t, std::uint64_t work,
                             std::uint64_t ready) = 0;
  // PE p does work[p] items (a PE without work holds nothing).
  virtual StepTime step_each(timing::Unit unit, const std::vector<std::uint64_t>& work, std::uint64_t ready,
                             timing::Path path = timing::Path::kDefault) = 0;

  // ---- function: every PE on its own LM ----
  virtual host::LmView lms() const = 0;
  // Makes real the LM ranges shared among PEs that instruction `prep` touches other than as MAC
  // operands (models/host/lm_replicas.h), so that it reads what real copies would hold.
  virtual void prepare(const program::Instr& instr, const program::PreparedInstr& prep) = 0;
  // C (+)= (A − a_zero)(B − b_zero) in every PE (a Mac or a TernaryMac, whose B is its W).
  virtual void mac(const host::MacShape& shape) = 0;
  // The first PE whose packed bytes are not codes of the codec, with the byte's LM offset.
  virtual std::optional<LaneError> dpt_decode(const program::DptDecode& op) = 0;
  // With `stage`, every PE's parameters; without, each PE's own from its LM. `dead[p]`: PE p's
  // results are never read and need not be computed.
  virtual std::optional<LaneError> requant(const program::Requant& op, const numeric::OutputStage* stage,
                                           const std::vector<bool>* dead) = 0;
  virtual void copy(const program::Copy& op) = 0;
  virtual void vector(const program::Vector& op) = 0;
  virtual void pool_max(const program::PoolMax& op) = 0;
  virtual void pool_sum(const program::PoolSum& op) = 0;
  virtual void quant_add(const program::QuantAdd& op) = 0;
  // Walks every PE's sparse block; an error when a block is malformed or its walk differs from the
  // work the instruction declares.
  virtual std::optional<LaneError> sparse_mac(const program::SparseMac& op) = 0;
  // A load's bytes into every replica's LM slots (padding filled with `pad`): `host` is the block,
  // row-major, or with `tensor` the whole tensor the block lies in (DRAM's bytes through DMI).
  // `gaps`: block elements not written (sorted, disjoint [begin, end) ranges of `host`'s block, a
  // row gather's gap rows); their slots keep what they held.
  virtual void scatter(const program::Transfer& t, const std::uint8_t* host, std::uint64_t lm,
                       std::int32_t pad, const program::Block* tensor,
                       const std::vector<std::pair<std::uint64_t, std::uint64_t>>* gaps = nullptr) = 0;
  // A store's bytes: replica 0 of every element from the LMs into `host` (as scatter's).
  virtual void gather(const program::Transfer& t, std::uint64_t lm, std::uint8_t* host,
                      const program::Block* tensor) = 0;
  // A collective's bytes within every subtree of `subtree` PEs.
  virtual void collective(const program::Instr& instr, std::uint64_t subtree) = 0;
  // What an operation failed with on the host, unexpectedly (out of memory, a bug), if anything
  // since the last call: kept for the caller to rethrow away from the sequencer's thread.
  virtual std::exception_ptr take_host_error() = 0;
};

class PeArray : public sc_core::sc_module, public PeArrayIf {
 public:
  sc_core::sc_export<PeArrayIf> lanes;

  // `threads`: host threads for the functional work of a step (the simulation's results do not
  // depend on it).
  PeArray(const sc_core::sc_module_name& name, const machine::MachineConfig& machine, unsigned threads);
  ~PeArray() override;
  PeArray(const PeArray&) = delete;
  PeArray& operator=(const PeArray&) = delete;

  std::uint64_t count() const { return count_; }
  std::uint64_t lm_bytes() const { return lm_bytes_; }
  std::uint8_t* lm(std::uint64_t pe) const { return arena_ + pe * lm_bytes_; }
  const Lanes& unit(timing::Unit u) const { return units_[static_cast<std::size_t>(u)]; }
  unsigned threads() const { return pool_->threads(); }
  // From now on the functional work runs on `threads` host threads (results do not depend on it).
  void set_threads(unsigned threads);

  StepTime step(timing::Unit unit, std::uint64_t work, std::uint64_t ready, timing::Path path) override;
  StepTime step_time(timing::Unit unit, const timing::UnitTime& t, std::uint64_t work,
                     std::uint64_t ready) override;
  StepTime step_each(timing::Unit unit, const std::vector<std::uint64_t>& work, std::uint64_t ready,
                     timing::Path path) override;

  host::LmView lms() const override { return {arena_, lm_bytes_, static_cast<std::uint32_t>(count_)}; }
  void prepare(const program::Instr& instr, const program::PreparedInstr& prep) override;
  void mac(const host::MacShape& shape) override;
  std::optional<LaneError> dpt_decode(const program::DptDecode& op) override;
  std::optional<LaneError> requant(const program::Requant& op, const numeric::OutputStage* stage,
                                   const std::vector<bool>* dead) override;
  void copy(const program::Copy& op) override;
  void vector(const program::Vector& op) override;
  void pool_max(const program::PoolMax& op) override;
  void pool_sum(const program::PoolSum& op) override;
  void quant_add(const program::QuantAdd& op) override;
  std::optional<LaneError> sparse_mac(const program::SparseMac& op) override;
  void scatter(const program::Transfer& t, const std::uint8_t* host, std::uint64_t lm, std::int32_t pad,
               const program::Block* tensor,
               const std::vector<std::pair<std::uint64_t, std::uint64_t>>* gaps = nullptr) override;
  void gather(const program::Transfer& t, std::uint64_t lm, std::uint8_t* host,
              const program::Block* tensor) override;
  void collective(const program::Instr& instr, std::uint64_t subtree) override;
  std::exception_ptr take_host_error() override { return std::exchange(host_error_, nullptr); }

  // Maps the pages of `ranges` (LM offsets) in every PE's LM before a run writes them: one call per
  // range and PE, or one for the arena when they cover nearly all of an LM, instead of a page fault
  // per page (models/host/host_pages.h). Pages an earlier call mapped are skipped. What the LMs hold does
  // not change.
  void map_lms(const std::vector<timing::Range>& ranges);
  // Makes every LM hold its own bytes (the ranges loads shared among PEs are copied out), for a
  // caller that reads the LMs after a run.
  void materialize_lms() { shared_.materialize_all(lms()); }
  // A new run from cycle `origin` (the LMs keep what earlier runs left); with a log, unit holds are
  // traced at the PEs (units from `first_pe` of trace level `level`).
  void start_run(std::uint64_t origin, trace::TraceLog* log, topology::Unit first_pe, int level);
  void detach_log();

 private:
  // Runs body over the lanes [0, count) on the lane pool (LanePool::run), keeping what it threw.
  void on_lanes(std::uint64_t count, std::uint64_t grain,
                const std::function<void(std::uint64_t, std::uint64_t, unsigned)>& body) {
    keep(pool_->run(count, grain, body));
  }
  // pool_max's and pool_sum's walk over every PE's windows (pe_array_compute.cpp).
  template <typename Op, typename Reduce>
  void reduce_windows(const Op& op, std::size_t width, Reduce reduce);
  void keep(std::exception_ptr e) {
    if (e && !host_error_) host_error_ = e;
  }
  // scatter()'s path for a load that is mostly gaps (rank 2, one replica, no padding): false when
  // the load is not, and the whole walk is cheaper.
  bool scatter_around_gaps(const program::Transfer& t, const std::uint8_t* host, std::uint64_t lm_base,
                           const std::vector<std::pair<std::uint64_t, std::uint64_t>>& gaps);
  // Calls body(slice, worker) over slices of a layout's run walk that cover it, on the lane pool.
  void walk_slices(const layout::BoundLayout& b,
                   const std::function<void(layout::OuterSlice, unsigned)>& body);
  const timing::CostModel cost_;
  const std::uint64_t count_, lm_bytes_;
  std::uint8_t* arena_ = nullptr;
  std::vector<bool> mapped_;  // the pages of an LM that map_lms mapped in every PE
  std::array<Lanes, timing::kUnitCount> units_;
  // Lock-step instructions start at least pe.instruction_step_cycles apart (when above 1): the
  // earliest start of the next one.
  std::uint64_t step_cycles_ = 1, next_issue_ = 0;
  std::uint64_t issue(std::uint64_t at);
  std::unique_ptr<host::LanePool> pool_;
  host::LmReplicas shared_;  // LM ranges loads shared among PEs instead of copying
  std::optional<host::MacIsa> mac_isa_;
  std::unique_ptr<host::MacBatch> mac_batch_;
  std::exception_ptr host_error_;
};

}  // namespace treesim::models
