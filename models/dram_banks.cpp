#include "models/dram_banks.h"

#include <algorithm>
#include <cmath>

namespace treesim::models {
namespace {

using machine::AddressField;

}  // namespace

DramBanks::DramBanks(const machine::BankedDramConfig& config, double clock_ghz)
    : config_(config), t_(config.memspec.t) {
  const machine::MemSpec& m = config_.memspec;
  device_per_machine_ = m.clock_mhz / (clock_ghz * 1000);
  burst_bytes_ = m.burst_bytes();
  for (auto it = config_.mapping.rbegin(); it != config_.mapping.rend(); ++it)
    fields_.push_back({*it, machine::address_field_values(config_, *it)});
  channels_.resize(config_.channels);
  for (Channel& c : channels_) {
    c.banks.resize(m.banks());
    c.ranks.resize(m.ranks);
    for (Rank& r : c.ranks)
      r.next_refresh = config_.refresh == machine::RefreshMode::kPerBank ? t_.tREFIpb : t_.tREFI;
  }
}

std::uint64_t DramBanks::to_device(std::uint64_t machine_cycle) const {
  return static_cast<std::uint64_t>(
      std::ceil(static_cast<long double>(machine_cycle) * device_per_machine_ - 1e-6L));
}

std::uint64_t DramBanks::to_machine(std::uint64_t device_cycle) const {
  return static_cast<std::uint64_t>(
      std::ceil(static_cast<long double>(device_cycle) / device_per_machine_ - 1e-6L));
}

namespace {

// The member of a place that holds an address field.
std::uint64_t& slot(DramBanks::Place& p, AddressField f) {
  switch (f) {
    case AddressField::kRow:
      return p.row;
    case AddressField::kRank:
      return p.rank;
    case AddressField::kBankGroup:
      return p.group;
    case AddressField::kBank:
      return p.bank;
    case AddressField::kColumn:
      return p.column;
    case AddressField::kChannel:
      break;
  }
  return p.channel;
}

// The XOR option: rows that share a bank's column bits spread over banks (its own inverse).
void swizzle(DramBanks::Place& p, const machine::MemSpec& m) {
  p.bank ^= p.row % m.banks_per_group;
  p.group ^= (p.row / m.banks_per_group) % m.bank_groups;
}

}  // namespace

DramBanks::Place DramBanks::decode(std::uint64_t address) const {
  std::uint64_t k = address / burst_bytes_;
  Place p;
  for (const auto& [field, n] : fields_) {
    slot(p, field) = k % n;
    k /= n;
  }
  if (config_.xor_bank) swizzle(p, config_.memspec);
  return p;
}

std::uint64_t DramBanks::encode(const Place& place) const {
  Place p = place;
  if (config_.xor_bank) swizzle(p, config_.memspec);
  std::uint64_t k = 0;
  for (auto it = fields_.rbegin(); it != fields_.rend(); ++it)
    k = k * it->second + slot(p, it->first) % it->second;
  return k * burst_bytes_;
}

void DramBanks::refresh_until(Channel& c, std::uint64_t rank, std::uint64_t t) {
  Rank& r = c.ranks[rank];
  const std::uint64_t per_rank = config_.memspec.bank_groups * config_.memspec.banks_per_group;
  const bool per_bank = config_.refresh == machine::RefreshMode::kPerBank;
  while (r.next_refresh <= t) {
    const std::uint64_t due = r.next_refresh;
    // All banks of the rank, or one that this round has not refreshed yet: a closed one when there
    // is one (a controller refreshes the banks the traffic is not using), else the first in turn.
    std::uint64_t first = 0, count = per_rank;
    if (per_bank) {
      if (r.refreshed.empty()) r.refreshed.assign(per_rank, false);
      count = 1;
      first = per_rank;
      // Of the closed ones, the one used last: a stream has left it and will not be back soon.
      bool closed = false;
      for (std::uint64_t k = 0; k < per_rank; ++k) {
        const std::uint64_t i = (r.next_bank + k) % per_rank;
        if (r.refreshed[i]) continue;
        const Bank& b = c.banks[rank * per_rank + i];
        if (first == per_rank) first = i;
        if (!b.open && (!closed || b.last_use > c.banks[rank * per_rank + first].last_use)) {
          first = i;
          closed = true;
        }
      }
    }
    std::uint64_t start = due;
    for (std::uint64_t i = first; i < first + count; ++i) {  // close them
      Bank& b = c.banks[rank * per_rank + i];
      if (!b.open) continue;
      start = std::max(start, std::max(due, b.next_pre) + t_.tRP);
      b.open = false;
      ++counters_.precharges;
    }
    const std::uint64_t end = start + (per_bank ? t_.tRFCpb : t_.tRFC);
    for (std::uint64_t i = first; i < first + count; ++i) {
      Bank& b = c.banks[rank * per_rank + i];
      b.next_act = std::max(b.next_act, end);
    }
    ++counters_.refreshes;
    counters_.refresh_pj += config_.memspec.energy.refresh / static_cast<double>(per_bank ? per_rank : 1);
    r.next_refresh += per_bank ? t_.tREFIpb : t_.tREFI;
    if (per_bank) {
      r.refreshed[first] = true;
      r.next_bank = (first + 1) % per_rank;
      if (++r.refreshed_count == per_rank) {  // a new round
        r.refreshed.assign(per_rank, false);
        r.refreshed_count = 0;
      }
    }
  }
}

std::uint64_t DramBanks::burst(const Place& p, bool write, std::uint64_t t) {
  Channel& c = channels_[p.channel];
  Rank& r = c.ranks[p.rank];
  const machine::MemSpec& m = config_.memspec;
  Bank& b = c.banks[(p.rank * m.bank_groups + p.group) * m.banks_per_group + p.bank];
  // The commands' times, planned until none falls at or after a refresh that is due first.
  enum class Kind { kHit, kMiss, kConflict } kind = Kind::kHit;
  std::uint64_t pre = 0, act = 0, col = 0, first = 0;
  for (;;) {
    refresh_until(c, p.rank, t);
    kind = !b.open ? Kind::kMiss : b.row == p.row ? Kind::kHit : Kind::kConflict;
    std::uint64_t col_ready = std::max(t, b.next_col);
    first = UINT64_MAX;
    if (kind != Kind::kHit) {
      std::uint64_t start = t;
      if (kind == Kind::kConflict) {
        pre = std::max(t, b.next_pre);
        start = pre + t_.tRP;
        first = pre;
      }
      act = std::max({start, b.next_act, c.last_act_issue});
      if (r.act_count > 0)
        act = std::max(act, r.last_act + (r.last_act_group == p.group ? t_.tRRD_L : t_.tRRD));
      if (r.act_count >= 4) act = std::max(act, r.acts[0] + t_.tFAW);
      first = std::min(first, act);
      col_ready = act + t_.tRCD;
    }
    col = col_ready;
    if (c.started) col = std::max(col, c.last_col + (c.last_col_group == p.group ? t_.tCCD_L : t_.tCCD));
    if (!write) {
      if (c.bus_free > t_.tCL) col = std::max(col, c.bus_free - t_.tCL);
      if (c.write_end > 0)
        col = std::max(col, c.write_end + (c.write_group == p.group ? t_.tWTR_L : t_.tWTR));
    } else {
      // The bus turns around between a read's data and a write's: two cycles.
      const std::uint64_t data_from = std::max(c.bus_free, c.read_end > 0 ? c.read_end + 2 : 0);
      if (data_from > t_.tWL) col = std::max(col, data_from - t_.tWL);
    }
    first = std::min(first, col);
    if (first < r.next_refresh) break;
    t = std::max(t, r.next_refresh);  // the refresh comes first; plan again after it
  }
  // Commit.
  switch (kind) {
    case Kind::kHit:
      ++counters_.row_hits;
      break;
    case Kind::kMiss:
      ++counters_.row_misses;
      break;
    case Kind::kConflict:
      ++counters_.row_conflicts;
      ++counters_.precharges;
      break;
  }
  if (kind != Kind::kHit) {
    b.open = true;
    b.row = p.row;
    b.next_col = act + t_.tRCD;
    b.next_pre = act + t_.tRAS;
    b.next_act = act + t_.tRC;
    c.last_act_issue = act;
    std::rotate(r.acts.begin(), r.acts.begin() + 1, r.acts.end());
    r.acts[3] = act;
    ++r.act_count;
    r.last_act = act;
    r.last_act_group = p.group;
    ++counters_.activates;
    counters_.activate_pj += m.energy.activate;
  }
  const std::uint64_t data_start = col + (write ? t_.tWL : t_.tCL), data_end = data_start + t_.tBURST;
  b.next_pre = std::max(b.next_pre, write ? data_end + t_.tWR : col + t_.tRTP);
  b.last_use = col;
  c.started = true;
  c.last_col = col;
  c.last_col_group = p.group;
  c.bus_free = data_end;
  if (write) {
    c.write_end = data_end;
    c.write_group = p.group;
    ++counters_.writes;
    counters_.write_pj += m.energy.write;
  } else {
    c.read_end = data_end;
    ++counters_.reads;
    counters_.read_pj += m.energy.read;
  }
  bus_cycles_ += t_.tBURST;
  if (config_.page_policy == machine::PagePolicy::kClosed) {
    b.open = false;
    b.next_act = std::max(b.next_act, b.next_pre + t_.tRP);
    ++counters_.precharges;
  }
  return data_end;
}

DramBanks::Served DramBanks::access(std::uint64_t address, std::uint64_t bytes, bool write,
                                    std::uint64_t arrival) {
  const std::uint64_t t = to_device(arrival + config_.controller_cycles);
  Served s{UINT64_MAX, arrival};
  if (bytes == 0) return {arrival, arrival};
  std::uint64_t first_data = UINT64_MAX, end = 0;
  for (std::uint64_t a = address / burst_bytes_ * burst_bytes_; a < address + bytes; a += burst_bytes_) {
    const std::uint64_t data_end = burst(decode(a), write, t);
    first_data = std::min(first_data, data_end - t_.tBURST);
    end = std::max(end, data_end);
  }
  s.first_data = to_machine(first_data);
  s.done = to_machine(end) + config_.controller_cycles;
  return s;
}

}  // namespace treesim::models
