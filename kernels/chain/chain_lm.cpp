// The chain's LM plan: resident regions placed from the top of the LM, first fit among those alive
// at the same time. Phases: layer i is 2i, the conversion after it 2i + 1.
#include "kernels/chain/chain_lm.h"

#include "kernels/gemm/gemm_estimate.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "sim/layout/bound_layout.h"
#include "sim/layout/convert.h"
#include "sim/layout/parse.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {
namespace {

struct Region {
  std::uint64_t lo = 0, hi = 0;
  std::size_t first = 0, last = 0;  // phases, inclusive
};

class LmMap {
 public:
  LmMap(std::uint64_t bytes, std::uint64_t align) : bytes_(bytes), align_(align) {}
  void fix(Region r) { regions_.push_back(r); }
  // The highest (or lowest) free range of `size` bytes over phases [first, last].
  std::optional<std::uint64_t> place(std::uint64_t size, std::size_t first, std::size_t last, bool top) {
    std::uint64_t hi = bytes_, lo = 0;
    for (;;) {
      if (top) {
        if (hi < size) return std::nullopt;
        lo = (hi - size) / align_ * align_;
      } else if (lo + size > bytes_) {
        return std::nullopt;
      }
      std::optional<std::uint64_t> below, above;
      for (const Region& r : regions_)
        if (r.first <= last && first <= r.last && r.lo < lo + size && lo < r.hi) {
          below = std::min(below.value_or(r.lo), r.lo);
          above = std::max(above.value_or(r.hi), r.hi);
        }
      if (!below) {
        regions_.push_back({lo, lo + size, first, last});
        return lo;
      }
      if (top)
        hi = *below;
      else
        lo = (*above + align_ - 1) / align_ * align_;
    }
  }
  void remove(std::uint64_t lo, std::size_t first) {
    regions_.erase(std::remove_if(regions_.begin(), regions_.end(),
                                  [&](const Region& r) { return r.lo == lo && r.first == first; }),
                   regions_.end());
  }
  std::uint64_t in_use(std::size_t phase) const {
    std::uint64_t sum = 0;
    for (const Region& r : regions_)
      if (r.first <= phase && phase <= r.last) sum += r.hi - r.lo;
    return sum;
  }

 private:
  std::uint64_t bytes_, align_;
  std::vector<Region> regions_;
};

}  // namespace

const char* boundary_name(ChainBoundary::Kind kind) {
  switch (kind) {
    case ChainBoundary::Kind::kDram:
      return "DRAM";
    case ChainBoundary::Kind::kConvert:
      return "convert";
    case ChainBoundary::Kind::kInPlace:
      return "in place";
  }
  return "?";
}

ChainLm place_chain_lm(const std::vector<QgemmProblem>& net, std::vector<QgemmPlan> plans,
                       const machine::MachineConfig& m, const ConversionTimes* known) {
  const std::size_t layers = net.size();
  const std::uint64_t w = lm_words(m);
  auto aligned = [&](std::uint64_t bytes) { return timing::ceil_div(bytes, w) * w; };
  ChainLm out;
  LmMap map(m.lm_bytes(), w);
  // A layer's buffers are in use from the conversion before it on: its first loads overlap it.
  for (std::size_t i = 0; i < layers; ++i) map.fix({0, aligned(plans[i].lm_bytes), i ? 2 * i - 1 : 0, 2 * i});
  if (!plans.empty()) plans.front().a_resident.reset(), plans.back().c_resident.reset();
  for (std::size_t i = 0; i + 1 < layers; ++i) {
    ChainBoundary& b = out.boundaries.emplace_back();
    QgemmPlan &up = plans[i], &down = plans[i + 1];
    if (!up.c_resident || !down.a_resident) {
      b.why = fmt::format("layer {}'s plan {}", up.c_resident ? i + 1 : i,
                          up.c_resident ? "loads its input from DRAM" : "stores its output to DRAM");
      up.c_resident.reset(), down.a_resident.reset();
      continue;
    }
    const QgemmProblem &pu = net[i], &pd = net[i + 1];
    b.from = resident_layout_c(pu, up, m);
    b.to = resident_layout_a(pd, down, m);
    const std::uint64_t c_bytes = aligned(resident_bytes_c(pu, up)),
                        a_bytes = aligned(resident_bytes_a(pd, down));
    std::optional<std::uint64_t> src, dst;
    // Inputs from the top, outputs from the bottom (above the layer's buffers): layer i's output
    // then stays clear of layer i+1's input, which takes the top once layer i's input is dead.
    if (b.from == b.to) {  // the next layer reads it where it is
      src = dst = map.place(std::max(c_bytes, a_bytes), 2 * i, 2 * i + 2, /*top=*/true);
      b.kind = ChainBoundary::Kind::kInPlace;
    } else {
      src = map.place(c_bytes, 2 * i, 2 * i + 1, /*top=*/false);
      if (src) dst = map.place(a_bytes, 2 * i + 1, 2 * i + 2, /*top=*/true);
      b.kind = ChainBoundary::Kind::kConvert;
    }
    if (!src || !dst) {
      if (src && b.kind == ChainBoundary::Kind::kConvert) map.remove(*src, 2 * i);
      b.kind = ChainBoundary::Kind::kDram;
      b.lm_full = true;
      b.input_bytes = a_bytes, b.output_bytes = c_bytes;
      b.why = fmt::format(
          "X{} does not fit: {} B per PE as layer {}'s output and {} B as layer {}'s input, beside layer "
          "{}'s "
          "{} B and layer {}'s {} B of buffers in the {}-byte LM",
          i + 1, c_bytes, i, a_bytes, i + 1, i, up.lm_bytes, i + 1, down.lm_bytes, m.lm_bytes());
      up.c_resident.reset(), down.a_resident.reset();
      continue;
    }
    b.src = *src, b.dst = *dst;
    up.c_resident = *src, down.a_resident = *dst;
    if (b.kind != ChainBoundary::Kind::kConvert) continue;
    if (auto it = known ? known->find({b.from, b.to}) : ConversionTimes::const_iterator{};
        known && it != known->end()) {
      b.time = it->second;
    } else {
      auto bind = [&](const std::string& text) {
        return layout::bind_or_throw(layout::parse_layout_or_throw(text, m), {pu.m, pu.n}, m, 1);
      };
      b.time = timing::CostModel(m).conversion(layout::plan_conversion(bind(b.from), bind(b.to)), 1);
    }
  }
  for (std::size_t i = 0; i < layers; ++i) out.lm_in_use.push_back(map.in_use(2 * i));
  for (std::size_t i = 0; i + 1 < layers; ++i) out.lm_at_boundary.push_back(map.in_use(2 * i + 1));
  out.plans = std::move(plans);
  return out;
}

std::vector<double> layer_estimates(const std::vector<QgemmProblem>& net, const ChainLm& lm,
                                    const machine::MachineConfig& m) {
  std::vector<double> out;
  for (std::size_t i = 0; i < lm.plans.size(); ++i) {
    const std::optional<timing::TransferTime>* before = i > 0 ? &lm.boundaries[i - 1].time : nullptr;
    out.push_back(estimate_cycles(net[i], lm.plans[i], m, before && *before ? &**before : nullptr));
  }
  return out;
}

ChainLm chain_lm(const std::vector<QgemmProblem>& net, const std::vector<QgemmPlan>& plans,
                 const machine::MachineConfig& m, bool via_dram, const ConversionTimes* known) {
  const std::size_t layers = plans.size();
  // Layer i's output sits above its buffers and layer i+1's (whose first loads overlap the
  // conversion), and layer i+1's input must fit above that during the conversion: when it does not,
  // layer i leaves room for layer i+1's input and layer i+1 for layer i's output, and the chain is
  // placed again.
  std::vector<std::uint64_t> leave(layers, 0);
  for (int round = 0;; ++round) {
    std::vector<QgemmPlan> shaped;
    std::vector<std::string> refused(layers);
    for (std::size_t i = 0; i < layers; ++i) {
      QgemmPlan plain = plans[i];
      plain.a_resident.reset(), plain.c_resident.reset();
      if (via_dram) {
        shaped.push_back(plain);
        continue;
      }
      // Both activations if they fit beside the buffers, else the one that does.
      const bool a = i > 0, c = i + 1 < layers;
      std::optional<QgemmPlan> kept;
      for (auto [ka, kc] : {std::pair{a, c}, std::pair{a, false}, std::pair{false, c}}) {
        if (!ka && !kc) continue;
        auto r = resident_plan(net[i], plain, m, ka, kc, leave[i]);
        if (auto* q = std::get_if<QgemmPlan>(&r)) {
          kept = std::move(*q);
          break;
        }
        if (refused[i].empty()) refused[i] = std::get<Rejection>(r).message;
      }
      if (kept) refused[i].clear();
      shaped.push_back(kept ? std::move(*kept) : plain);
    }
    ChainLm out = place_chain_lm(net, std::move(shaped), m, known);
    bool again = false;
    for (std::size_t i = 0; i + 1 < layers; ++i) {
      ChainBoundary& b = out.boundaries[i];
      if (b.kind != ChainBoundary::Kind::kDram) continue;
      if (b.lm_full && round < 2) {
        leave[i] += b.input_bytes;
        leave[i + 1] += b.output_bytes;
        again = true;
      }
      if (via_dram) b.why = "the plan sends every activation through DRAM";
      for (std::size_t side : {i, i + 1})
        if (!refused[side].empty())
          b.why = fmt::format("layer {} cannot keep its activations in the LM: {}", side, refused[side]);
    }
    if (!again) return out;
  }
}

}  // namespace treesim::kernels
