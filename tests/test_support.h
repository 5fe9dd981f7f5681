// What every test may need: where the sources, test data and the treesim binary are, and a way to
// run the binary and capture what it printed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace treesim::testing {

std::string source_path(const std::string& relative);  // e.g. "configs/mini.yaml"
std::string data_path(const std::string& relative);    // in tests/data, e.g. "quant/vectors.json"
std::string temp_path(const std::string& name);        // a fresh path in a per-process temp dir

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
  std::uint64_t peak_rss_bytes = 0;  // the child's peak resident memory (getrusage's ru_maxrss)
};

// Runs the treesim binary with `args` (no shell: arguments are passed as they are).
CliResult run_treesim(const std::vector<std::string>& args);
// `treesim run KERNEL --machine configs/MACHINE.yaml --quiet --report R ARGS` with --verify, or
// --timing-only; the report's JSON text, or "" (with a test failure) when the run does not exit 0.
std::string run_kernel_report(const std::string& kernel, const std::string& machine,
                              const std::vector<std::string>& args, bool timing_only);

// The same under limits: the child's address space capped at `memory_bytes` (RLIMIT_AS; not in
// sanitizer builds, whose shadow memory needs far more address space) and killed after
// `timeout_seconds` (exit_code 128 + SIGKILL then). `seconds` is the wall time the child took.
struct LimitedResult : CliResult {
  bool timed_out = false;
  double seconds = 0;
};
LimitedResult run_treesim_limited(const std::vector<std::string>& args, std::uint64_t memory_bytes,
                                  int timeout_seconds);
// Whether this build runs under AddressSanitizer (the memory cap is then not applied).
bool sanitizer_build();

// The whole contents of a file ("" when it cannot be read).
std::string read_text(const std::string& path);

// Writes `text` to a fresh temporary file and returns its path.
std::string write_temp_file(const std::string& name, const std::string& text);

}  // namespace treesim::testing
