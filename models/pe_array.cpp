#include "models/pe_array.h"

#include <algorithm>

#include "host/host_pages.h"

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
  if (mac_isa_) mac_batch_ = std::make_unique<host::MacBatch>(*mac_isa_);
  lanes.bind(*this);
}

PeArray::~PeArray() { host::free_pages(arena_, count_ * lm_bytes_); }

void PeArray::set_threads(unsigned threads) {
  if (threads != pool_->threads()) pool_ = std::make_unique<host::LanePool>(threads);
}

StepTime PeArray::step(timing::Unit unit, std::uint64_t work, std::uint64_t ready, timing::Path path) {
  const timing::UnitTime t = cost_.unit(unit, work, path);
  if (t.busy == 0) return {ready, ready + t.latency, 0};
  Lanes& lanes = units_[static_cast<std::size_t>(unit)];
  const std::uint64_t at = std::max(ready, lanes.latest_free());
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

void PeArray::map_lms(std::vector<timing::Range> ranges) {
  const std::uint64_t page = 4096;
  if (count_ == 0 || lm_bytes_ == 0) return;
  // The ranges' pages, merged.
  for (timing::Range& r : ranges)
    r.lo = r.lo / page * page, r.hi = std::min(lm_bytes_, (r.hi + page - 1) / page * page);
  std::sort(ranges.begin(), ranges.end(),
            [](const timing::Range& x, const timing::Range& y) { return x.lo < y.lo; });
  std::vector<timing::Range> pages;
  std::uint64_t covered = 0;
  for (const timing::Range& r : ranges) {
    if (r.lo >= r.hi) continue;
    if (!pages.empty() && r.lo <= pages.back().hi)
      pages.back().hi = std::max(pages.back().hi, r.hi);
    else
      pages.push_back(r);
  }
  for (const timing::Range& r : pages) covered += r.hi - r.lo;
  if (covered >= lm_bytes_ / 8 * 7) return host::populate_pages(arena_, count_ * lm_bytes_);
  for (std::uint64_t p = 0; p < count_; ++p)
    for (const timing::Range& r : pages) host::populate_pages(lm(p) + r.lo, r.hi - r.lo);
}

void PeArray::start_run(std::uint64_t origin, trace::TraceLog* log, topology::Unit first_pe, int level) {
  for (timing::Unit u : timing::kUnits)
    units_[static_cast<std::size_t>(u)].start_run(origin, log, first_pe, level, timing::Resource::unit(u));
}

void PeArray::detach_log() {
  for (Lanes& u : units_) u.detach_log();
}

}  // namespace treesim::models
