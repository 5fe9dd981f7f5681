// `treesim layout convert --run`: the conversion simulated on the machine (a load by the source
// layout, then a `convert` instruction on the tree), its cycles next to the cost model's, and
// every LM slot of the destination layout checked against the tensor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "sim/core/dtype.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/convert.h"
#include "tools/run_options.h"

namespace treesim::tools {

struct ConversionRun {
  std::uint64_t cycles = 0;           // the convert instruction's, start to end
  std::uint64_t estimate_cycles = 0;  // timing::CostModel::conversion, alone
  std::uint64_t slots_checked = 0;    // element slots of the destination, every replica
  report::VerifyResult verify;        // not checked when timing only
};

// Simulates converting a random tensor (`seed`) placed by `from` into `to` (bound to the same
// shape and type on `machine`). `run` gives the report, trace and timing-only options.
ConversionRun simulate_conversion(const machine::MachineConfig& machine, core::DType type,
                                  const layout::BoundLayout& from, const layout::BoundLayout& to,
                                  const layout::ConversionPlan& plan, std::uint64_t seed,
                                  const RunOptions& run, OutputSet& outputs);

}  // namespace treesim::tools
