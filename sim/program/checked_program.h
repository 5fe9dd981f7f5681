// Checking a program against a machine before it runs: every problem is returned as a value with
// its instruction index (as Timeloop's EvalStatus), and what the checks work out — the bound
// layouts of loads and stores with their traffic per level and per port, the memory ranges each
// instruction reads and writes, the requant output stages — is kept for the sequencer, so nothing
// is worked out twice. Sizes are checked arithmetic: a range that would wrap is an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/error.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/convert.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/port_traffic.h"
#include "sim/machine/machine_config.h"
#include "sim/numeric/requant.h"
#include "sim/program/halo.h"
#include "sim/program/instruction.h"
#include "sim/program/window.h"
#include "sim/timing/scoreboard.h"

namespace treesim::program {

// Memory spaces of timing::Range: the LMs (the same offsets in every PE), then DRAM tensor i.
inline constexpr std::uint32_t kLmSpace = 0;
inline std::uint32_t dram_space(std::size_t tensor) { return static_cast<std::uint32_t>(tensor + 1); }

// Where a block of a row-major DRAM tensor lies: the block's element i (row-major over `shape`)
// is the tensor's element full_index(i).
struct Block {
  std::vector<std::uint64_t> offset, shape, tensor_strides;
  bool whole = true;  // the block is the whole tensor: full_index(i) = i
  std::uint64_t full_index(std::uint64_t i) const;
  std::uint64_t elements() const;
};

// The distinct tensor elements a transfer reads from DRAM or writes to it when they are not its
// block's (a windowed load, a row gather or scatter): sorted, disjoint runs.
struct DramRuns {
  std::vector<ElementRun> runs;
  std::uint64_t elements = 0;  // in the runs
  explicit DramRuns(std::vector<ElementRun> r) : runs(std::move(r)) {
    for (const ElementRun& x : runs) elements += x.count;
  }
  // The tensor elements from the first run's to the last's end: what a staging buffer holds.
  std::uint64_t first() const { return runs.empty() ? 0 : runs.front().first; }
  std::uint64_t span() const { return runs.empty() ? 0 : runs.back().first + runs.back().count - first(); }
};

// A windowed load's window and the tensor's shape (its DRAM reads are Transfer::dram_runs: the
// distinct tensor elements the block's windows touch; the block's own elements are what the links
// carry).
struct WindowRead {
  Window window;
  std::vector<std::uint64_t> tensor_shape;
  // Expanded at the PEs (Load::halo): the largest PE's patch, in bytes from the halo offset.
  std::optional<std::uint64_t> halo_patch_bytes;
};

// A row gather or scatter (its rows are the instruction's, Load::rows or Store::rows, not copied);
// its DRAM reads or writes are Transfer::dram_runs, the distinct tensor elements of the block's rows.
struct RowRead {
  std::uint64_t row_elements = 0;  // the tensor's (or view's) elements per row
};

// A load or store: its layout bound to the block, and what it moves.
struct Transfer {
  layout::BoundLayout bound;
  Block block;
  std::size_t tensor = 0;             // index into Program::tensors
  std::uint64_t footprint_bytes = 0;  // LM bytes per PE from the instruction's base offset
  layout::TrafficPlan plan;           // load: plan_load; store: plan_gather
  layout::PortTraffic ports;          // per level: the ports it uses and their bytes
  std::optional<WindowRead> window;   // a windowed load: `block` is a block of the window's matrix
  std::optional<RowRead> rows;        // a row gather or scatter: `block` is a block of the rows' matrix
  std::optional<DramRuns> dram_runs;  // with window or rows: what DRAM reads or writes
};

// A convert: the tensor by each layout (whole-tensor transfers for the PEs' gather and scatter)
// and the conversion's traffic.
struct Conversion {
  Transfer from, to;
  layout::ConversionPlan plan;
};

// What a store writes in its DRAM tensor, for the scoreboard: the bytes from its block's first
// element to its last (a block of a row-major tensor lies in that span), so that stores of disjoint
// blocks do not wait for each other; the whole tensor where the block is the tensor's or not one
// (a row scatter).
timing::Range dram_written(const Transfer& t, const TensorDecl& tensor);

struct PreparedInstr {
  std::vector<timing::Range> reads, writes;
  std::optional<Transfer> transfer;           // load, store
  std::optional<Conversion> conversion;       // convert
  std::optional<numeric::OutputStage> stage;  // requant with its parameters in the instruction
};

struct CheckedProgram {
  core::Errors errors;  // where = "instruction 8 (store)" or "tensor A"
  std::vector<PreparedInstr> instrs;
  bool ok() const { return errors.empty(); }
};

CheckedProgram check_program(const Program& program, const machine::MachineConfig& machine);

// The output stage of a requant instruction with the given multipliers (its own when empty).
numeric::OutputStage output_stage(const Requant& r,
                                  const std::vector<numeric::QuantizedMultiplier>& multipliers);

}  // namespace treesim::program
