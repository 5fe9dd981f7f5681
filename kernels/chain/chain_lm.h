// Where a chain's activations live between layers (a network of GEMM layers: each layer's problem,
// layer i's C the shape of layer i+1's A): in the LMs (the next layer reads layer i's C in
// place, or after a conversion on the tree) or, when they do not fit, through DRAM. Each layer's
// working buffers take the bottom of the LM (its plan's map); the resident regions are placed from
// the top down, first fit among the regions alive at the same time. No SystemC here.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernels/chain/chain.h"
#include "sim/timing/cost_model.h"

namespace treesim::kernels {

struct ChainBoundary {
  enum class Kind { kDram, kConvert, kInPlace };
  Kind kind = Kind::kDram;
  std::string why;                                  // for kDram: why the activation goes through DRAM
  std::uint64_t src = 0, dst = 0;                   // LM byte offsets of layer i's C and layer i+1's A
  std::string from, to;                             // their resident layouts (kConvert, kInPlace)
  std::optional<timing::TransferTime> time;         // kConvert: as the cost model (and the run) times it
  bool lm_full = false;                             // kDram because the regions did not fit
  std::uint64_t input_bytes = 0, output_bytes = 0;  // then: layer i+1's input, layer i's output, per PE
};

struct ChainLm {
  std::vector<QgemmPlan> plans;               // resident offsets set
  std::vector<ChainBoundary> boundaries;      // boundary i: layer i's output → layer i+1's input
  std::vector<std::uint64_t> lm_in_use;       // per layer: its buffers and the resident regions alive
  std::vector<std::uint64_t> lm_at_boundary;  // per boundary: the resident regions alive there
};

const char* boundary_name(ChainBoundary::Kind kind);  // "DRAM", "convert", "in place"

// Conversions already timed, by (from, to) layout text: planning one is slow on a big machine.
using ConversionTimes = std::map<std::pair<std::string, std::string>, timing::TransferTime>;

// Places the activations that the plans keep resident (their a_resident/c_resident flags, set by
// resident_plan); a boundary whose regions do not fit goes through DRAM (both plans' flags cleared)
// and says why.
ChainLm place_chain_lm(const std::vector<QgemmProblem>& net, std::vector<QgemmPlan> plans,
                       const machine::MachineConfig& m, const ConversionTimes* known = nullptr);

// Each layer's estimate in the chain's program: its plan's, with the conversion of its input
// sharing the ports with its first loads (estimate_cycles' `before`). Their sum is the chain's.
std::vector<double> layer_estimates(const std::vector<QgemmProblem>& net, const ChainLm& lm,
                                    const machine::MachineConfig& m);

// Every activation between layers kept in the LMs where it can be: each layer's plan (of any
// planner) reshaped by resident_plan, then placed. With `via_dram`, every activation goes through
// DRAM and the plans are kept as they are.
ChainLm chain_lm(const std::vector<QgemmProblem>& net, const std::vector<QgemmPlan>& plans,
                 const machine::MachineConfig& m, bool via_dram = false,
                 const ConversionTimes* known = nullptr);

}  // namespace treesim::kernels
