// A GEMM plan file: what `treesim tune qgemm|tgemm --out` writes and `treesim run --plan-file`
// reads. It names the problem it was made for and the plan's choices — which levels split M, N and
// K, and the tiling — from which make_plan rebuilds the same plan. The layouts and the estimate are
// written too, for people; the reader ignores them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/gemm/gemm.h"
#include "kernels/kernel.h"

namespace treesim::kernels {

struct GemmPlanFile {
  std::string kernel;   // "qgemm" or "tgemm"
  std::string machine;  // the machine's name
  std::uint64_t m = 0, n = 0, k = 0;
  Assignment assignment;
  Tiling tiling;
};

// The file's YAML text; `layouts` are the operand layouts, one "name: layout" line each. Without
// `header`, no comment, kernel or machine: one layer of a chain plan file.
std::string plan_file_text(const GemmPlanFile& file, const QgemmPlan& plan,
                           const machine::MachineConfig& machine, const std::string& layouts,
                           bool header = true);

// The plan file of a single GEMM's plan (qgemm's or tgemm's: `b_name` is its B operand's name, "B"
// or "W"), with its whole-operand layouts; an error when `plan` was made by another kernel.
Result<std::string> gemm_plan_file_text(const std::string& kernel, const std::string& b_name,
                                        const QgemmProblem& problem, const Plan& plan,
                                        const machine::MachineConfig& machine);

// A chain plan file: one plan per layer (the layers' own m, n, k, split and tiling).
// `activations: lm` keeps the activations between layers in the LMs; `dram` sends them through
// DRAM (when the planner found that faster). Files written before the field existed ran through
// DRAM, so that is what its absence means.
struct GemmChainPlanFile {
  std::string kernel, machine;
  std::vector<GemmPlanFile> layers;
  bool via_dram = true;
};
// `layer_texts` from plan_file_text without header, one per layer.
std::string chain_plan_file_text(const std::string& machine_name, const std::vector<std::string>& layer_texts,
                                 double estimated_cycles, const std::string& comment, bool via_dram = false);
Result<GemmChainPlanFile> read_chain_plan_file(const std::string& path,
                                               const machine::MachineConfig& machine);

// Reads a plan file; an error names the file, its line and the field, and what was expected.
Result<GemmPlanFile> read_plan_file(const std::string& path, const machine::MachineConfig& machine);
// The parsing halves of the two readers: a file's text, named `path` in messages.
Result<GemmPlanFile> parse_plan_file(const std::string& text, const std::string& path,
                                     const machine::MachineConfig& machine);
Result<GemmChainPlanFile> parse_chain_plan_file(const std::string& text, const std::string& path,
                                                const machine::MachineConfig& machine);

// The plan `file` describes for `problem` (its m, n, k checked); errors name `where`.
Result<QgemmPlan> plan_for(const GemmPlanFile& file, const QgemmProblem& problem,
                           const machine::MachineConfig& machine, const std::string& where);

// The plan the file describes for `problem` (kernel `kernel`): an error when the file was made for
// another kernel, machine or shape, or its plan cannot work.
Result<QgemmPlan> plan_from_file(const std::string& path, const std::string& kernel,
                                 const QgemmProblem& problem, const machine::MachineConfig& machine);

}  // namespace treesim::kernels
