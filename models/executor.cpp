#include "models/executor.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include <fmt/format.h>

#include "models/layout_transfer.h"
#include "sim/layout/diagnostic.h"
#include "sim/numeric/requant.h"

namespace treesim::models {
namespace {

using core::DType;
using timing::Range;
using timing::Resources;

constexpr std::uint32_t kLm = 0;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

// PEs in one subtree of a unit of `level` (-1 = the board).
std::uint64_t pes_below(const machine::MachineConfig& c, int level) {
  return level < 0 ? c.pe_count() : c.pe_count() / c.units_at(static_cast<std::size_t>(level));
}

Range lm_range(std::uint64_t lo, std::uint64_t bytes) { return Range{kLm, lo, lo + bytes}; }

// The output stage of a requant instruction, without its multipliers.
numeric::OutputStage output_stage_template(const program::Requant& r) {
  numeric::OutputStage s;
  s.multipliers.clear();
  s.out_zero_point = r.out_zero;
  s.out_dtype = r.out_dtype == DType::kUInt8 ? core::DType::kUInt8 : core::DType::kInt8;
  s.act_min = r.act_min;
  s.act_max = r.act_max;
  s.rounding = r.rounding;
  return s;
}

numeric::OutputStage output_stage(const program::Requant& r) {
  numeric::OutputStage s = output_stage_template(r);
  for (std::size_t i = 0; i < r.multiplier.size(); ++i)
    s.multipliers.push_back(numeric::QuantizedMultiplier{r.multiplier[i], r.shift[i]});
  return s;
}

}  // namespace

// Everything an instruction needs that can be worked out before it runs.
struct Executor::Prepared {
  std::optional<LayoutTransfer> transfer;     // load / store
  std::optional<numeric::OutputStage> stage;  // requant
  int level = -2;                             // collectives: the level index (-1 = board)
};

Executor::Executor(Board& board, const program::Program& program,
                   std::map<std::string, std::vector<std::uint8_t>> dram, bool trace)
    : board_(board),
      config_(board.config()),
      program_(program),
      dram_(std::move(dram)),
      resources_(board.config()),
      tracing_(trace) {
  for (const auto& [name, bytes] : dram_) {
    const program::TensorDecl* t = program_.find_tensor(name);
    if (!t) throw SimError(fmt::format("input '{}' is not a tensor of the program", name));
    if (bytes.size() != t->bytes())
      throw SimError(fmt::format("input '{}' has {} bytes, the program declares {} ({} × {})", name,
                                 bytes.size(), t->bytes(), t->elements(), core::dtype_name(t->dtype)));
    scoreboard_.mark_written(Range{space_of(name), 0, t->bytes()});
  }
  for (const auto& t : program_.tensors) dram_.try_emplace(t.name, t.bytes(), 0);
  prepare();
  if (tracing_) {
    const int pe_level = static_cast<int>(config_.levels.size()) - 1;
    auto node_of = [&](timing::Resource r) -> std::pair<int, std::string> {
      switch (r) {
        case Resources::kDram:
          return {topology::kBoardLevel, "dram"};
        case Resources::kMac:
          return {pe_level, "mac"};
        case Resources::kDptDecoder:
          return {pe_level, "dpt"};
        case Resources::kRequant:
          return {pe_level, "requant"};
        case Resources::kCopy:
          return {pe_level, "copy"};
        default: {
          // A level's ports live in its parents: level l's links are traced under level l − 1.
          std::size_t l = (r - resources_.down(0)) / 2;
          bool down = r == resources_.down(l);
          return {static_cast<int>(l) - 1, down ? "down" : "up"};
        }
      }
    };
    for (timing::Resource r = 0; r < resources_.count(); ++r) {
      auto [level, name] = node_of(r);
      busy_signal_.push_back(trace_.add_signal(level, name + "_busy", 1));
      bool moves_bytes = r == Resources::kDram || r >= resources_.down(0);
      bytes_signal_.push_back(moves_bytes ? trace_.add_signal(level, name + "_bytes", 32)
                                          : busy_signal_.back());
    }
    board_instr_ = trace_.add_signal(topology::kBoardLevel, "instr", 32);
    pe_instr_ = trace_.add_signal(pe_level, "instr", 32);
  }
}

Executor::~Executor() = default;

void Executor::fail(std::size_t index, const std::string& message) const {
  throw SimError(
      fmt::format("instruction {} ({}): {}", index, program::kind_name(program_.instrs[index]), message));
}

std::uint32_t Executor::space_of(const std::string& tensor) const {
  for (std::size_t i = 0; i < program_.tensors.size(); ++i)
    if (program_.tensors[i].name == tensor) return static_cast<std::uint32_t>(i + 1);
  throw SimError(fmt::format("tensor '{}' is not declared", tensor));
}

const program::TensorDecl& Executor::tensor(std::size_t index, const std::string& name) const {
  const program::TensorDecl* t = program_.find_tensor(name);
  if (!t) fail(index, fmt::format("tensor '{}' is not declared", name));
  return *t;
}

int Executor::level_index(std::size_t index, program::Level level) const {
  if (level.is_board()) return topology::kBoardLevel;
  if (level.index < 0 || static_cast<std::size_t>(level.index) >= config_.levels.size())
    fail(index, fmt::format("level {} is not a level of machine '{}'", level.index, config_.name));
  if (static_cast<std::size_t>(level.index) + 1 == config_.levels.size())
    fail(index, fmt::format("a collective needs a level above the PE, got '{}'", config_.levels.back().name));
  return level.index;
}

void Executor::prepare() {
  prepared_.resize(program_.instrs.size());
  for (std::size_t i = 0; i < program_.instrs.size(); ++i) {
    Prepared& p = prepared_[i];
    std::visit(
        Overloaded{
            [&](const auto& t) -> void {
              using T = std::decay_t<decltype(t)>;
              if constexpr (std::is_same_v<T, program::Load> || std::is_same_v<T, program::Store>) {
                try {
                  p.transfer = prepare_transfer(t.layout, tensor(i, t.tensor), t.offset, t.shape, config_);
                } catch (const std::invalid_argument& e) {
                  fail(i, e.what());
                } catch (const layout::LayoutError& e) {
                  const layout::Diagnostic& d = e.diagnostic();
                  std::string where = d.column ? fmt::format(" at column {}", d.column) : "";
                  fail(i,
                       fmt::format("layout \"{}\"{}: {}", layout::to_string(t.layout), where, d.headline()));
                }
              } else if constexpr (std::is_same_v<T, program::Requant>) {
                if (t.out_dtype == DType::kInt32) fail(i, "out_dtype must be int8 or uint8");
                if (t.params_in_lm) return;  // checked per PE when it runs
                if (t.multiplier.size() != t.shift.size())
                  fail(i, fmt::format("{} multipliers but {} shifts", t.multiplier.size(), t.shift.size()));
                if (t.multiplier.size() != 1 && t.multiplier.size() != t.cols)
                  fail(i, fmt::format("{} multipliers: give 1 (per tensor) or cols = {} (per channel)",
                                      t.multiplier.size(), t.cols));
                try {
                  p.stage = output_stage(t);
                  numeric::validate(*p.stage, t.cols);
                } catch (const numeric::QuantError& e) {
                  fail(i, e.what());
                }
              } else if constexpr (std::is_same_v<T, program::Broadcast> ||
                                   std::is_same_v<T, program::Scatter> ||
                                   std::is_same_v<T, program::Gather> || std::is_same_v<T, program::Reduce>) {
                p.level = level_index(i, t.level);
              } else if constexpr (std::is_same_v<T, program::Mac>) {
                if (t.a_dtype == DType::kInt32 || t.b_dtype == DType::kInt32)
                  fail(i, "MAC operands must be int8 or uint8");
              }
            },
        },
        program_.instrs[i]);
    // Every LM range must lie inside the LM.
    Planned planned = plan(i);
    for (const auto* list : {&planned.reads, &planned.writes})
      for (const Range& r : *list)
        if (r.space == kLm && r.hi > config_.lm_bytes())
          fail(i, fmt::format("LM range [{}, {}) is outside the {}-byte LM", r.lo, r.hi, config_.lm_bytes()));
  }
}

Executor::Planned Executor::plan(std::size_t i) const {
  Planned p;
  p.traffic.resize(config_.levels.size());
  const Prepared& prep = prepared_[i];
  const std::uint64_t pes = config_.pe_count();
  auto add_unit = [&](timing::Resource r, std::uint64_t work, std::uint64_t rate, std::uint64_t latency) {
    p.cost = timing::unit_cost(r, work, rate, latency);
  };
  std::visit(Overloaded{
                 [&](const program::Load& op) {
                   p.reads.push_back(Range{space_of(op.tensor), 0, tensor(i, op.tensor).bytes()});
                   p.writes.push_back(lm_range(op.lm, prep.transfer->footprint_bytes));
                   plan_transfer(prep.transfer->load, /*down=*/true, p);
                 },
                 [&](const program::Store& op) {
                   p.reads.push_back(lm_range(op.lm, prep.transfer->footprint_bytes));
                   p.writes.push_back(Range{space_of(op.tensor), 0, tensor(i, op.tensor).bytes()});
                   plan_transfer(prep.transfer->gather, /*down=*/false, p);
                 },
                 [&](const program::Mac& op) {
                   const std::uint64_t sa = core::dtype_bytes(op.a_dtype), sb = core::dtype_bytes(op.b_dtype);
                   p.reads = {lm_range(op.a, op.m * op.k * sa), lm_range(op.b, op.k * op.n * sb)};
                   if (op.accumulate) p.reads.push_back(lm_range(op.c, op.m * op.n * 4));
                   p.writes = {lm_range(op.c, op.m * op.n * 4)};
                   add_unit(Resources::kMac, op.m * op.n * op.k, config_.pe.mac.int8_macs_per_cycle,
                            config_.pe.mac.latency_cycles);
                   p.macs = op.m * op.n * op.k * pes;
                 },
                 [&](const program::TernaryMac& op) {
                   p.reads = {lm_range(op.a, op.m * op.k * core::dtype_bytes(op.a_dtype)),
                              lm_range(op.w, op.k * op.n)};
                   if (op.accumulate) p.reads.push_back(lm_range(op.c, op.m * op.n * 4));
                   p.writes = {lm_range(op.c, op.m * op.n * 4)};
                   add_unit(Resources::kMac, op.m * op.n * op.k, config_.pe.mac.int8_macs_per_cycle,
                            config_.pe.mac.latency_cycles);
                   p.macs = op.m * op.n * op.k * pes;
                 },
                 [&](const program::DptDecode& op) {
                   p.reads = {lm_range(op.src, op.bytes)};
                   p.writes = {lm_range(op.dst, op.bytes * 5)};
                   add_unit(Resources::kDptDecoder, op.bytes, config_.pe.dpt_decoder.bytes_per_cycle,
                            config_.pe.dpt_decoder.latency_cycles);
                   p.dpt_bytes = op.bytes * pes;
                 },
                 [&](const program::Requant& op) {
                   p.reads = {lm_range(op.src, op.rows * op.cols * 4)};
                   if (op.has_bias) p.reads.push_back(lm_range(op.bias, op.cols * 4));
                   if (op.params_in_lm) {
                     p.reads.push_back(lm_range(op.multiplier_lm, op.cols * 4));
                     p.reads.push_back(lm_range(op.shift_lm, op.cols * 4));
                   }
                   p.writes = {lm_range(op.dst, op.rows * op.cols)};
                   add_unit(Resources::kRequant, op.rows * op.cols, config_.pe.requant.values_per_cycle,
                            config_.pe.requant.latency_cycles);
                   p.requant_values = op.rows * op.cols * pes;
                 },
                 [&](const program::Copy& op) {
                   p.reads = {lm_range(op.src, op.bytes)};
                   p.writes = {lm_range(op.dst, op.bytes)};
                   add_unit(Resources::kCopy, op.bytes, config_.pe.copy.bytes_per_cycle,
                            config_.pe.copy.latency_cycles);
                   p.copy_bytes = op.bytes * pes;
                 },
                 [&](const auto& op) { plan_collective(i, op, p); },
             },
             program_.instrs[i]);
  if (p.lm_bytes == 0) {
    for (const auto* list : {&p.reads, &p.writes})
      for (const Range& r : *list)
        if (r.space == kLm) p.lm_bytes += (r.hi - r.lo) * pes;
  }
  return p;
}

// A load (down, from DRAM) or a store (up, to DRAM) through every level, by its layout's plan.
void Executor::plan_transfer(const layout::TrafficPlan& plan, bool down, Planned& p) const {
  const std::uint64_t dram_bytes = down ? plan.dram_read_bytes : plan.dram_write_bytes;
  std::vector<timing::ResourceStage> stages{{Resources::kDram, dram_bytes, config_.dram.bytes_per_cycle}};
  std::uint64_t latency = config_.dram.latency_cycles;
  for (std::size_t l = 0; l < config_.levels.size(); ++l) {
    const layout::LevelTraffic& lt = plan.levels[l];
    report::LinkStats& t = p.traffic[l];
    if (down) {
      stages.push_back(
          {resources_.down(l), lt.busiest_down_port_bytes, config_.levels[l].down_bytes_per_cycle});
      t.down_sent_bytes = lt.down_sent_bytes;
      t.down_delivered_bytes = lt.down_delivered_bytes;
      t.down_busiest_port_bytes = lt.busiest_down_port_bytes;
    } else {
      stages.push_back({resources_.up(l), lt.busiest_up_port_bytes, config_.levels[l].up_bytes_per_cycle});
      t.up_sent_bytes = lt.up_sent_bytes;
      t.up_delivered_bytes = lt.up_delivered_bytes;
      t.up_busiest_port_bytes = lt.busiest_up_port_bytes;
    }
    latency += config_.levels[l].latency_cycles;
  }
  p.cost = timing::transfer_cost(stages, latency);
  (down ? p.dram_read : p.dram_write) = dram_bytes;
  // The LM side: what the PEs receive, or what they send.
  p.lm_bytes = down ? plan.levels.back().down_delivered_bytes : plan.levels.back().up_sent_bytes;
}

template <typename Op>
void Executor::plan_collective(std::size_t i, const Op& op, Planned& p) const {
  const int li = prepared_[i].level;
  const std::uint64_t pes = config_.pe_count();
  const std::uint64_t subtrees = li < 0 ? 1 : config_.units_at(static_cast<std::size_t>(li));
  const std::uint64_t s = pes / subtrees;  // PEs per subtree
  const std::size_t last = config_.levels.size() - 1;
  constexpr bool kBroadcast = std::is_same_v<Op, program::Broadcast>;
  constexpr bool kScatter = std::is_same_v<Op, program::Scatter>;
  constexpr bool kGather = std::is_same_v<Op, program::Gather>;
  const std::uint64_t b = [&] {
    if constexpr (std::is_same_v<Op, program::Reduce>)
      return op.count * 4;
    else
      return op.bytes;
  }();
  // Reduce: blocks a unit of level l sends up (1 where it sums, all its children's otherwise).
  std::vector<std::uint64_t> blocks(config_.levels.size(), 1);
  for (std::size_t l = last; l-- > 0;)
    blocks[l] = config_.levels[l].reduce ? 1 : config_.levels[l + 1].fanout * blocks[l + 1];
  std::uint64_t down_blocks = 1;
  if (li < 0)
    down_blocks = config_.levels[0].fanout * blocks[0];
  else if (!config_.levels[static_cast<std::size_t>(li)].reduce)
    down_blocks =
        config_.levels[static_cast<std::size_t>(li) + 1].fanout * blocks[static_cast<std::size_t>(li) + 1];

  std::vector<timing::ResourceStage> stages;
  std::uint64_t latency = 0;
  for (std::size_t l = static_cast<std::size_t>(li + 1); l <= last; ++l) {
    const std::uint64_t parents = l == 0 ? 1 : config_.units_at(l - 1);
    const std::uint64_t units = config_.units_at(l);
    const std::uint64_t per_parent = pes / parents;  // PEs below one parent port
    report::LinkStats& t = p.traffic[l];
    if constexpr (kBroadcast) {
      t.up_sent_bytes = t.up_delivered_bytes = subtrees * b;
      t.up_busiest_port_bytes = b;
      t.down_sent_bytes = parents * b;
      t.down_delivered_bytes = units * b;
      t.down_busiest_port_bytes = b;
    } else if constexpr (kScatter) {
      t.up_sent_bytes = t.up_delivered_bytes = subtrees * s * b;
      t.up_busiest_port_bytes = s * b;
      t.down_sent_bytes = t.down_delivered_bytes = pes * b;
      t.down_busiest_port_bytes = per_parent * b;
    } else if constexpr (kGather) {
      t.up_sent_bytes = t.up_delivered_bytes = pes * b;
      t.up_busiest_port_bytes = per_parent * b;
      t.down_sent_bytes = t.down_delivered_bytes = subtrees * s * b;
      t.down_busiest_port_bytes = s * b;
    } else {
      t.up_sent_bytes = t.up_delivered_bytes = units * blocks[l] * b;
      t.up_busiest_port_bytes = config_.levels[l].fanout * blocks[l] * b;
      t.down_sent_bytes = t.down_delivered_bytes = subtrees * down_blocks * b;
      t.down_busiest_port_bytes = down_blocks * b;
    }
    stages.push_back({resources_.up(l), t.up_busiest_port_bytes, config_.levels[l].up_bytes_per_cycle});
    stages.push_back({resources_.down(l), t.down_busiest_port_bytes, config_.levels[l].down_bytes_per_cycle});
    latency += 2 * config_.levels[l].latency_cycles;  // up to the level's unit and back down
  }
  p.cost = timing::transfer_cost(stages, latency);
  std::uint64_t read = b, write = b;
  if constexpr (kScatter) read = s * b;
  if constexpr (kGather) write = s * b;
  p.reads = {lm_range(op.src, read)};
  p.writes = {lm_range(op.dst, write)};
}

void Executor::perform(std::size_t i) {
  const auto& pes = board_.pes();
  const Prepared& prep = prepared_[i];
  std::visit(Overloaded{
                 [&](const program::Load& op) {
                   scatter_tensor(*prep.transfer, dram_.at(op.tensor).data(), pes, op.lm, op.pad);
                 },
                 [&](const program::Store& op) {
                   gather_tensor(*prep.transfer, pes, op.lm, dram_.at(op.tensor).data());
                 },
                 [&](const program::Mac& op) {
                   const std::uint64_t a_bytes = op.m * op.k * core::dtype_bytes(op.a_dtype),
                                       b_bytes = op.k * op.n * core::dtype_bytes(op.b_dtype);
                   for (std::size_t p = 0; p < pes.size(); ++p) {
                     mac_scratch_.same_a =
                         p > 0 && std::memcmp(pes[p]->lm() + op.a, pes[p - 1]->lm() + op.a, a_bytes) == 0;
                     mac_scratch_.same_b =
                         p > 0 && std::memcmp(pes[p]->lm() + op.b, pes[p - 1]->lm() + op.b, b_bytes) == 0;
                     pes[p]->mac(op, mac_scratch_);
                   }
                 },
                 [&](const program::TernaryMac& op) {
                   const std::uint64_t a_bytes = op.m * op.k * core::dtype_bytes(op.a_dtype),
                                       w_bytes = op.k * op.n;
                   for (std::size_t p = 0; p < pes.size(); ++p) {
                     mac_scratch_.same_a =
                         p > 0 && std::memcmp(pes[p]->lm() + op.a, pes[p - 1]->lm() + op.a, a_bytes) == 0;
                     mac_scratch_.same_b =
                         p > 0 && std::memcmp(pes[p]->lm() + op.w, pes[p - 1]->lm() + op.w, w_bytes) == 0;
                     pes[p]->ternary_mac(op, mac_scratch_);
                   }
                 },
                 [&](const program::DptDecode& op) {
                   for (Pe* pe : pes) pe->dpt_decode(op);
                 },
                 [&](const program::Requant& op) {
                   if (!op.params_in_lm) {
                     for (Pe* pe : pes) pe->requant(op, *prep.stage);
                     return;
                   }
                   // Per-channel parameters differ per PE: each PE's come from its own LM.
                   numeric::OutputStage stage = output_stage_template(op);
                   std::vector<std::int32_t> mult(op.cols), shift(op.cols);
                   for (Pe* pe : pes) {
                     std::memcpy(mult.data(), pe->lm() + op.multiplier_lm, op.cols * 4);
                     std::memcpy(shift.data(), pe->lm() + op.shift_lm, op.cols * 4);
                     stage.multipliers.clear();
                     for (std::uint64_t c = 0; c < op.cols; ++c)
                       stage.multipliers.push_back({mult[c], shift[c]});
                     try {
                       numeric::validate(stage, op.cols);
                     } catch (const numeric::QuantError& e) {
                       fail(i, fmt::format("PE {}: {}", pe->id(), e.what()));
                     }
                     pe->requant(op, stage);
                   }
                 },
                 [&](const program::Copy& op) {
                   for (Pe* pe : pes) pe->copy(op);
                 },
                 [&](const auto& op) { perform_collective(i, op); },
             },
             program_.instrs[i]);
}

template <typename Op>
void Executor::perform_collective(std::size_t i, const Op& op) {
  const auto& pes = board_.pes();
  const std::uint64_t s = pes_below(config_, prepared_[i].level);
  std::vector<std::uint8_t> buffer;
  for (std::uint64_t first = 0; first < pes.size(); first += s) {
    if constexpr (std::is_same_v<Op, program::Broadcast>) {
      buffer.assign(pes[first]->lm() + op.src, pes[first]->lm() + op.src + op.bytes);
      for (std::uint64_t j = 0; j < s; ++j)
        std::memcpy(pes[first + j]->lm() + op.dst, buffer.data(), op.bytes);
    } else if constexpr (std::is_same_v<Op, program::Scatter>) {
      buffer.assign(pes[first]->lm() + op.src, pes[first]->lm() + op.src + s * op.bytes);
      for (std::uint64_t j = 0; j < s; ++j)
        std::memcpy(pes[first + j]->lm() + op.dst, buffer.data() + j * op.bytes, op.bytes);
    } else if constexpr (std::is_same_v<Op, program::Gather>) {
      buffer.resize(s * op.bytes);
      for (std::uint64_t j = 0; j < s; ++j)
        std::memcpy(buffer.data() + j * op.bytes, pes[first + j]->lm() + op.src, op.bytes);
      std::memcpy(pes[first]->lm() + op.dst, buffer.data(), buffer.size());
    } else {
      std::vector<std::uint32_t> sum(op.count, 0), part(op.count);
      for (std::uint64_t j = 0; j < s; ++j) {
        std::memcpy(part.data(), pes[first + j]->lm() + op.src, op.count * 4);
        for (std::uint64_t c = 0; c < op.count; ++c) sum[c] += part[c];  // int32 wraps, as the adders do
      }
      std::memcpy(pes[first]->lm() + op.dst, sum.data(), op.count * 4);
    }
  }
}

void Executor::schedule_next() {
  const std::size_t i = next_;
  Planned p = plan(i);
  for (const Range& r : p.reads) {
    if (scoreboard_.written(r)) continue;
    if (r.space == kLm)
      fail(i, fmt::format("reads LM [{}, {}) which no earlier instruction wrote", r.lo, r.hi));
    fail(i,
         fmt::format("reads DRAM tensor '{}' which holds no data (give it as an input or store to it first)",
                     program_.tensors[r.space - 1].name));
  }
  const std::uint64_t ready = scoreboard_.ready(p.reads, p.writes);
  const timing::Scheduled when = timing::schedule(p.cost, ready, resources_);
  scoreboard_.commit(p.reads, p.writes, when.end);
  timings_[i] = {when.start, when.end};
  end_ = std::max(end_, when.end);
  if (tracing_) record_trace(i, p, when);
  records_[i] = std::move(p);
  pending_ = true;
}

void Executor::perform_next() {
  perform(next_);
  pending_ = false;
  ++next_;
}

void Executor::record_trace(std::size_t i, const Planned& p, const timing::Scheduled& when) {
  trace_.change(when.start, board_instr_, i);
  bool compute = false;
  for (std::size_t u = 0; u < p.cost.uses.size(); ++u) {
    const auto& use = p.cost.uses[u];
    const std::uint64_t start = when.use_starts[u];
    trace_.change(start, busy_signal_[use.resource], 1);
    trace_.change(start + use.cycles, busy_signal_[use.resource], 0);
    if (bytes_signal_[use.resource] != busy_signal_[use.resource]) {
      std::uint64_t bytes = 0;
      if (use.resource == Resources::kDram) {
        bytes = p.dram_read + p.dram_write;
      } else {
        std::size_t l = (use.resource - resources_.down(0)) / 2;
        bytes = use.resource == resources_.down(l) ? p.traffic[l].down_busiest_port_bytes
                                                   : p.traffic[l].up_busiest_port_bytes;
      }
      trace_.change(start, bytes_signal_[use.resource], bytes);
      trace_.change(start + use.cycles, bytes_signal_[use.resource], 0);
    }
    if (use.resource < resources_.down(0) && use.resource != Resources::kDram && !compute) {
      trace_.change(start, pe_instr_, i);
      compute = true;
    }
  }
}

std::optional<std::uint64_t> Executor::advance(std::uint64_t now) {
  if (timings_.size() != program_.instrs.size()) {
    timings_.assign(program_.instrs.size(), {});
    records_.assign(program_.instrs.size(), {});
  }
  while (next_ < program_.instrs.size()) {
    if (!pending_) schedule_next();
    // Instructions are decided in program order; each does its work when time reaches its start.
    if (timings_[next_].start > now) return timings_[next_].start;
    perform_next();
  }
  if (end_ > now) return end_;  // let time run to the last completion
  return std::nullopt;
}

report::RunStats Executor::stats() const { return stats(0, program_.instrs.size()); }

report::RunStats Executor::stats(std::size_t first, std::size_t last) const {
  report::RunStats s;
  s.levels.resize(config_.levels.size());
  for (const auto& kind : program::kind_names()) s.instructions[kind];
  std::vector<std::uint64_t> busy(resources_.count(), 0);
  for (std::size_t i = first; i < last && i < records_.size(); ++i) {
    const Planned& p = records_[i];
    s.cycles = std::max(s.cycles, timings_[i].end);
    auto& ks = s.instructions[program::kind_name(program_.instrs[i])];
    ks.count += 1;
    ks.cycles += p.cost.duration;
    for (const auto& use : p.cost.uses) busy[use.resource] += use.cycles;
    s.dram_read_bytes += p.dram_read;
    s.dram_write_bytes += p.dram_write;
    for (std::size_t l = 0; l < p.traffic.size(); ++l) {
      report::LinkStats& a = s.levels[l];
      const report::LinkStats& t = p.traffic[l];
      a.down_sent_bytes += t.down_sent_bytes;
      a.down_delivered_bytes += t.down_delivered_bytes;
      a.up_sent_bytes += t.up_sent_bytes;
      a.up_delivered_bytes += t.up_delivered_bytes;
      a.down_busiest_port_bytes += t.down_busiest_port_bytes;
      a.up_busiest_port_bytes += t.up_busiest_port_bytes;
    }
    s.macs += p.macs;
    s.dpt_bytes += p.dpt_bytes;
    s.requant_values += p.requant_values;
    s.copy_bytes += p.copy_bytes;
    s.lm_bytes_accessed += p.lm_bytes;
    for (const Range& w : p.writes)
      if (w.space == kLm) s.lm_peak_bytes_per_pe = std::max(s.lm_peak_bytes_per_pe, w.hi);
  }
  for (timing::Resource r = 0; r < resources_.count(); ++r)
    s.resource_busy_cycles[resources_.name(r)] = busy[r];
  return s;
}

}  // namespace treesim::models
