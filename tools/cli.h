// Shared pieces of the `treesim` command line: errors with exit codes, machine loading, output.
#pragma once

#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "sim/core/error.h"
#include "sim/io/npy.h"
#include "sim/machine/machine_config.h"
#include "sim/program/instruction.h"

namespace treesim::tools {

// Exit status for bad input (files, options, layouts): the message is one line on stderr.
inline constexpr int kExitBadInput = 2;

// An error that ends the command with a one-line message and an exit status.
class CliError : public std::runtime_error {
 public:
  explicit CliError(const std::string& message, int exit_code = kExitBadInput)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// The one line a command prints for `errors`: the first of them (they come in the order the user
// would fix them), or "failed" when there is none.
inline std::string first_error(const core::Errors& errors) {
  return errors.empty() ? "failed" : errors.front().message();
}

// Loads and validates a machine file; its errors become CliErrors with exit status 2.
machine::MachineConfig load_machine_or_throw(const std::string& path);

// Writes `text` to stdout, or atomically to `path` when it is not empty and not "-".
void emit(const std::string& text, const std::string& path = "");

// Subcommand families, one file each.
void add_info_command(CLI::App& app);
void add_dram_command(CLI::App& app);
void add_topology_command(CLI::App& app);
void add_layout_command(CLI::App& app);
void add_dpt_command(CLI::App& app);
void add_quant_command(CLI::App& app);
void add_trace_command(CLI::App& app);
void add_exec_command(CLI::App& app);
void add_place_command(CLI::App& app);
void add_run_command(CLI::App& app);
// `run mlp` (tools/cmd_mlp.cpp), a subcommand of `run` beside the kernels.
void add_mlp_command(CLI::App& run);
void add_sweep_command(CLI::App& app);
void add_plot_command(CLI::App& app);
void add_sparse_command(CLI::App& app);
void add_tune_command(CLI::App& app);
void add_onnx_command(CLI::App& app);

}  // namespace treesim::tools
