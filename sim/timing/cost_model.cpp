#include "sim/timing/cost_model.h"

#include <algorithm>

namespace treesim::timing {

std::uint64_t TransferTime::duration() const {
  std::uint64_t longest = 0;
  for (const Stage& s : stages) longest = std::max(longest, s.cycles);
  return latency + longest;
}

Datapath datapath(Unit u, Path path) {
  switch (u) {
    case Unit::kMac:
      return path == Path::kTernaryMac ? Datapath::kTernaryMac
             : path == Path::kSparse   ? Datapath::kSparseWalk
                                       : Datapath::kInt8Mac;
    case Unit::kDptDecoder:
      return path == Path::kBase3 ? Datapath::kBase3 : Datapath::kDpt;
    case Unit::kRequant:
      return Datapath::kRequant;
    case Unit::kCopy:
      return Datapath::kCopy;
    case Unit::kVector:
      return Datapath::kVector;
  }
  return Datapath::kInt8Mac;
}

std::pair<std::uint64_t, std::uint64_t> CostModel::rate(Datapath d) const {
  const Rate r = spec(d).rate(m_.pe);
  return {r.per_cycle, r.latency};
}

std::pair<std::uint64_t, std::uint64_t> CostModel::rate(Unit u, Path path) const {
  return rate(datapath(u, path));
}

std::pair<std::uint64_t, std::uint64_t> CostModel::rate(Resource r) const {
  switch (r.kind()) {
    case Resource::Kind::kDram:  // all channels together: each moves its share of a spread tensor
      return {m_.dram.bytes_per_cycle * m_.dram_channels(), m_.dram.latency_cycles};
    case Resource::Kind::kPort: {
      const machine::LevelConfig& l = m_.levels.at(r.level());
      return {r.direction() == Direction::kDown ? l.down_bytes_per_cycle : l.up_bytes_per_cycle,
              l.latency_cycles};
    }
    case Resource::Kind::kUnit:
      break;
  }
  return rate(r.pe_unit());
}

UnitTime CostModel::unit(Unit u, std::uint64_t work, Path path) const {
  const auto [per_cycle, latency] = rate(u, path);
  return {ceil_div(work, per_cycle), latency};
}

namespace {

// An operation's price: its pe.vector.ops entry or the simple default; one lane-cycle a value on a
// machine without the unit or without a price for it (the program checker refuses both first).
machine::VectorOpCost op_cost(const machine::PeConfig& pe, core::VectorOp op) {
  return pe.vector ? pe.vector->cost(op).value_or(machine::VectorOpCost{}) : machine::VectorOpCost{};
}

}  // namespace

std::uint64_t CostModel::vector_items(core::VectorOp op, std::uint64_t values) const {
  return values * op_cost(m_.pe, op).cycles_per_value;
}

UnitTime CostModel::vector(core::VectorOp op, std::uint64_t values_per_pe) const {
  const machine::VectorOpCost c = op_cost(m_.pe, op);
  UnitTime t = unit(Unit::kVector, values_per_pe * c.cycles_per_value);
  t.latency += c.latency_cycles;
  return t;
}

std::uint64_t CostModel::sparse_items(std::uint64_t entries, std::uint64_t segments,
                                      const std::array<std::uint64_t, 4>& visits, std::uint64_t n) const {
  const machine::SparseMacConfig c = m_.pe.sparse_mac.value_or(machine::SparseMacConfig{});
  std::uint64_t items =
      c.segment_items * segments +
      c.entry_items * entries * std::max<std::uint64_t>(1, ceil_div(n, rate(Unit::kMac).first));
  for (std::size_t k = 0; k < visits.size(); ++k) items += c.level_items[k] * visits[k];
  return items;
}

UnitTime CostModel::dram(std::uint64_t bytes) const {
  const auto [per_cycle, latency] = rate(Resource::dram());
  return {ceil_div(bytes, per_cycle), latency};
}

UnitTime CostModel::dram_channel(std::uint64_t bytes) const {
  return {ceil_div(bytes, m_.dram.bytes_per_cycle), m_.dram.latency_cycles};
}

UnitTime CostModel::port(std::size_t level, Direction d, std::uint64_t bytes) const {
  const auto [per_cycle, latency] = rate(Resource::port(level, d));
  return {ceil_div(bytes, per_cycle), latency};
}

std::uint64_t CostModel::path_latency() const {
  std::uint64_t cycles = dram(0).latency;
  for (std::size_t l = 0; l < m_.levels.size(); ++l) cycles += port(l, Direction::kDown, 0).latency;
  return cycles;
}

TransferTime CostModel::transfer(const layout::TrafficPlan& plan, Direction d) const {
  const bool down = d == Direction::kDown;
  TransferTime t;
  const std::uint64_t dram_bytes = down ? plan.dram_read_bytes : plan.dram_write_bytes;
  const UnitTime dt = dram(dram_bytes);
  t.stages.push_back({Resource::dram(), dram_bytes, dt.busy});
  t.latency = dt.latency;
  for (std::size_t l = 0; l < m_.levels.size(); ++l) {
    const layout::LevelTraffic& lt = plan.levels[l];
    const std::uint64_t bytes = down ? lt.busiest_down_port_bytes : lt.busiest_up_port_bytes;
    const UnitTime pt = port(l, d, bytes);
    t.stages.push_back({Resource::port(l, d), bytes, pt.busy});
    t.latency += pt.latency;
  }
  if (!down) std::reverse(t.stages.begin(), t.stages.end());  // a store flows from the PEs up
  return t;
}

TransferTime CostModel::load(const layout::TrafficPlan& plan) const {
  return transfer(plan, Direction::kDown);
}
TransferTime CostModel::store(const layout::TrafficPlan& plan) const {
  return transfer(plan, Direction::kUp);
}

TransferTime CostModel::conversion(const layout::ConversionPlan& plan, std::uint64_t element_bytes) const {
  TransferTime t;
  for (Direction d : {Direction::kUp, Direction::kDown})
    for (std::size_t i = 0; i < m_.levels.size() && i < plan.levels.size(); ++i) {
      // Up: from the PEs towards the root; down: from the root towards the PEs.
      const std::size_t l = d == Direction::kUp ? m_.levels.size() - 1 - i : i;
      const layout::LevelTraffic& lt = plan.levels[l];
      const std::uint64_t bytes = d == Direction::kUp ? lt.busiest_up_port_bytes : lt.busiest_down_port_bytes;
      if (bytes == 0) continue;
      const UnitTime pt = port(l, d, bytes);
      t.stages.push_back({Resource::port(l, d), bytes, pt.busy});
      t.latency += pt.latency;
    }
  const std::uint64_t in_pe = plan.copies_by_lca.empty() ? 0 : plan.copies_by_lca.back();
  if (in_pe > 0) {
    // The copy unit works beside the links: the conversion ends with the slower of the two.
    const UnitTime copy = unit(Unit::kCopy, ceil_div(in_pe * element_bytes, m_.pe_count()));
    if (copy.duration() > t.duration()) {
      t.stages.assign(1, {Resource::unit(Unit::kCopy), in_pe * element_bytes, copy.busy});
      t.latency = copy.latency;
    }
  }
  return t;
}

std::vector<CollectiveLevelTraffic> CostModel::collective_traffic(Collective kind, int li,
                                                                  std::uint64_t b) const {
  const std::size_t levels = m_.levels.size(), last = levels - 1;
  std::vector<CollectiveLevelTraffic> out(levels);
  const std::uint64_t pes = m_.pe_count();
  const std::uint64_t subtrees = li < 0 ? 1 : m_.units_at(static_cast<std::size_t>(li));
  const std::uint64_t s = pes / subtrees;  // PEs per subtree
  // Reduce: blocks a unit of level l sends up (1 where its parent sums, all its children's otherwise).
  std::vector<std::uint64_t> blocks(levels, 1);
  for (std::size_t l = last; l-- > 0;)
    blocks[l] = m_.levels[l].reduce ? 1 : m_.levels[l + 1].fanout * blocks[l + 1];
  std::uint64_t down_blocks = 1;
  if (li < 0)
    down_blocks = m_.levels[0].fanout * blocks[0];
  else if (!m_.levels[static_cast<std::size_t>(li)].reduce)
    down_blocks =
        m_.levels[static_cast<std::size_t>(li) + 1].fanout * blocks[static_cast<std::size_t>(li) + 1];
  for (std::size_t l = static_cast<std::size_t>(li + 1); l <= last; ++l) {
    const std::uint64_t parents = l == 0 ? 1 : m_.units_at(l - 1);
    const std::uint64_t units = m_.units_at(l);
    const std::uint64_t per_parent = pes / parents;  // PEs below one parent port
    CollectiveLevelTraffic& t = out[l];
    switch (kind) {
      case Collective::kBroadcast:
        t.up_sent = t.up_delivered = subtrees * b;
        t.up_busiest = b;
        t.down_sent = parents * b;
        t.down_delivered = units * b;
        t.down_busiest = b;
        break;
      case Collective::kScatter:
        t.up_sent = t.up_delivered = subtrees * s * b;
        t.up_busiest = s * b;
        t.down_sent = t.down_delivered = pes * b;
        t.down_busiest = per_parent * b;
        break;
      case Collective::kGather:
        t.up_sent = t.up_delivered = pes * b;
        t.up_busiest = per_parent * b;
        t.down_sent = t.down_delivered = subtrees * s * b;
        t.down_busiest = s * b;
        break;
      case Collective::kReduce:
        t.up_sent = t.up_delivered = units * blocks[l] * b;
        t.up_busiest = m_.levels[l].fanout * blocks[l] * b;
        t.down_sent = t.down_delivered = subtrees * down_blocks * b;
        t.down_busiest = down_blocks * b;
        break;
    }
  }
  return out;
}

TransferTime CostModel::collective(Collective kind, int li, std::uint64_t bytes) const {
  TransferTime t;
  const auto traffic = collective_traffic(kind, li, bytes);
  for (std::size_t l = static_cast<std::size_t>(li + 1); l < m_.levels.size(); ++l) {
    const UnitTime up = port(l, Direction::kUp, traffic[l].up_busiest);
    const UnitTime down = port(l, Direction::kDown, traffic[l].down_busiest);
    t.stages.push_back({Resource::port(l, Direction::kUp), traffic[l].up_busiest, up.busy});
    t.stages.push_back({Resource::port(l, Direction::kDown), traffic[l].down_busiest, down.busy});
    t.latency += up.latency + down.latency;  // up to the level's unit and back down
  }
  return t;
}

Peaks CostModel::peaks() const {
  Peaks p;
  p.int8_macs_per_cycle = m_.pe_count() * rate(Unit::kMac).first;
  p.dram_bytes_per_cycle = rate(Resource::dram()).first;
  for (std::size_t l = 0; l < m_.levels.size(); ++l) {
    const std::uint64_t parents = l == 0 ? 1 : m_.units_at(l - 1);
    const std::uint64_t down = rate(Resource::port(l, Direction::kDown)).first;
    const std::uint64_t up = rate(Resource::port(l, Direction::kUp)).first;
    p.port_down_bytes_per_cycle.push_back(down);
    p.port_up_bytes_per_cycle.push_back(up);
    p.level_down_bytes_per_cycle.push_back(parents * down);
    p.level_up_bytes_per_cycle.push_back(parents * up);
    p.latency_cycles.push_back(rate(Resource::port(l, Direction::kDown)).second);
  }
  p.cycles_per_second = m_.clock_ghz * 1e9;
  return p;
}

Roofline CostModel::roofline(const Work& w) const {
  Roofline r;
  const std::uint64_t pes = m_.pe_count();
  auto bound = [&](Resource res, std::uint64_t cycles) { r.bounds[name(res, m_)] = cycles; };
  // A unit's bound is the sum over its datapaths, each rounded up on its own.
  for (Unit u : machine_units(m_)) {
    std::uint64_t cycles = 0;
    for (const DatapathSpec& d : datapath_specs())
      if (d.unit == u) cycles += ceil_div(w[d.path], pes * rate(d.path).first);
    bound(Resource::unit(u), cycles);
  }
  bound(Resource::dram(), dram(w.dram_bytes()).busy);
  for (std::size_t l = 0; l < m_.levels.size() && l < w.levels.size(); ++l) {
    bound(Resource::port(l, Direction::kDown),
          port(l, Direction::kDown, w.levels[l].busiest_down_port_bytes).busy);
    bound(Resource::port(l, Direction::kUp), port(l, Direction::kUp, w.levels[l].busiest_up_port_bytes).busy);
  }
  for (const auto& [name, cycles] : r.bounds) {
    if (cycles > r.cycles || r.resource.empty()) {
      r.cycles = cycles;
      r.resource = name;
    }
  }
  return r;
}

}  // namespace treesim::timing
