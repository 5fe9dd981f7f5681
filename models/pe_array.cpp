#include "models/pe_array.h"

#include <algorithm>

#include "models/host/host_pages.h"

namespace treesim::models {

PeArray::PeArray(const sc_core::sc_module_name& name, const machine::MachineConfig& machine, unsigned threads)
    : sc_core::sc_module(name),
      lanes("lanes"),
      cost_(machine),
      count_(machine.pe_count()),
      lm_bytes_(machine.lm_bytes()),
      pool_(std::make_unique<host::LanePool>(threads)),
      mac_isa_(host::fastest_mac_isa()) {
  // Fresh zero pages: an LM costs memory only once it is written.
  arena_ = host::allocate_pages(count_ * lm_bytes_);
  for (Lanes& u : units_) u = Lanes(count_);
  step_cycles_ = machine.pe.instruction_step_cycles;
  if (mac_isa_) mac_batch_ = std::make_unique<host::MacBatch>(*mac_isa_);
  lanes.bind(*this);
}

PeArray::~PeArray() { host::free_pages(arena_, count_ * lm_bytes_); }

void PeArray::set_threads(unsigned threads) {
  if (threads != pool_->threads()) pool_ = std::make_unique<host::LanePool>(threads);
}

StepTime PeArray::step(timing::Unit unit, std::uint64_t work, std::uint64_t ready, timing::Path path) {
  return step_time(unit, cost_.unit(unit, work, path), work, ready);
}

StepTime PeArray::step_time(timing::Unit unit, const timing::UnitTime& t, std::uint64_t work,
                            std::uint64_t ready) {
  if (t.busy == 0) return {ready, ready + t.latency, 0};
  Lanes& lanes = units_[static_cast<std::size_t>(unit)];
  const std::uint64_t at = issue(std::max(ready, lanes.latest_free()));
  lanes.hold_all(at, t.busy, work);
  return {at, at + t.busy + t.latency, t.busy};
}

StepTime PeArray::step_each(timing::Unit unit, const std::vector<std::uint64_t>& work, std::uint64_t ready,
                            timing::Path path) {
  Lanes& lanes = units_[static_cast<std::size_t>(unit)];
  const std::uint64_t latency = cost_.unit(unit, 0, path).latency;
  // Lock-step PEs mostly have equal work: its closed form is worked out once per run of equal work.
  std::uint64_t last_work = 0, last_busy = 0;
  auto busy_of = [&](std::uint64_t w) {
    if (w != last_work) last_work = w, last_busy = cost_.unit(unit, w, path).busy;
    return last_busy;
  };
  std::uint64_t at = ready, longest = 0;
  bool alike = true;
  for (std::uint64_t p = 0; p < count_; ++p) {
    alike = alike && work[p] == work[0];
    const std::uint64_t busy = busy_of(work[p]);
    if (busy == 0) continue;
    at = std::max(at, lanes.next_free(p));
    longest = std::max(longest, busy);
  }
  if (longest == 0) return {ready, ready + latency, 0};
  at = issue(at);
  if (alike) {
    lanes.hold_all(at, longest, work[0]);
  } else {
    for (std::uint64_t p = 0; p < count_; ++p) {
      const std::uint64_t busy = busy_of(work[p]);
      if (busy > 0) lanes.hold_one(p, at, busy, work[p]);
    }
  }
  return {at, at + longest + latency, longest};
}

void PeArray::map_lms(const std::vector<timing::Range>& ranges) {
  const std::uint64_t page = 4096;
  if (count_ == 0 || lm_bytes_ == 0) return;
  const std::uint64_t pages = (lm_bytes_ + page - 1) / page;
  if (mapped_.empty()) mapped_.assign(pages, false);
  // The ranges' pages that no earlier call mapped: a later run of the same program maps nothing
  // (the kernel would still walk every page table to find them mapped).
  std::vector<bool> want(pages, false);
  std::uint64_t covered = 0;
  for (const timing::Range& r : ranges)
    for (std::uint64_t p = r.lo / page; p < std::min(pages, (r.hi + page - 1) / page); ++p) want[p] = true;
  for (std::uint64_t p = 0; p < pages; ++p) {
    covered += want[p] || mapped_[p];
    want[p] = want[p] && !mapped_[p];
  }
  // On the lane pool: the kernel fills page tables of one address space on several cores at once.
  constexpr std::uint64_t kPesPerPiece = 64;
  if (covered >= pages / 8 * 7) {
    if (std::find(mapped_.begin(), mapped_.end(), false) != mapped_.end())
      on_lanes(count_, kPesPerPiece, [&](std::uint64_t first, std::uint64_t last, unsigned) {
        host::populate_pages(lm(first), (last - first) * lm_bytes_);
      });
    mapped_.assign(pages, true);
    return;
  }
  for (std::uint64_t lo = 0; lo < pages;) {
    if (!want[lo]) {
      ++lo;
      continue;
    }
    std::uint64_t hi = lo;
    while (hi < pages && want[hi]) mapped_[hi++] = true;
    const std::uint64_t bytes = std::min(lm_bytes_, hi * page) - lo * page;
    on_lanes(count_, kPesPerPiece, [&](std::uint64_t first, std::uint64_t last, unsigned) {
      for (std::uint64_t pe = first; pe < last; ++pe) host::populate_pages(lm(pe) + lo * page, bytes);
    });
    lo = hi;
  }
}

std::uint64_t PeArray::issue(std::uint64_t at) {
  if (step_cycles_ <= 1) return at;
  at = std::max(at, next_issue_);
  next_issue_ = at + step_cycles_;
  return at;
}

void PeArray::start_run(std::uint64_t origin, trace::TraceLog* log, topology::Unit first_pe, int level) {
  next_issue_ = origin;
  for (timing::Unit u : timing::machine_units(cost_.machine()))
    units_[static_cast<std::size_t>(u)].start_run(origin, log, first_pe, level, timing::Resource::unit(u));
}

void PeArray::detach_log() {
  for (Lanes& u : units_) u.detach_log();
}

}  // namespace treesim::models
