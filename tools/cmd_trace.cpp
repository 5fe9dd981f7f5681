// `treesim trace summarize FILE.json`: the critical path and the longest stalls of a run, from its
// --trace-json trace.
#include <iostream>

#include "sim/io/input_file.h"
#include "sim/trace/stall_summary.h"
#include "tools/cli.h"
#include "tools/options.h"

namespace treesim::tools {

void add_trace_command(CLI::App& app) {
  auto* trace = app.add_subcommand("trace", "Read a trace written by --trace-json");
  trace->require_subcommand(1);
  auto* cmd = trace->add_subcommand(
      "summarize", "The critical path and the longest stalls: what each instruction waited for");
  struct Options {
    std::string file;
    std::size_t top = 10;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("file", o->file, "Trace-event JSON written by --trace-json")->required();
  cmd->add_option("--top", o->top, "How many stretches of the path and stalls to list")
      ->check(unsigned_in(1, 1000000));
  cmd->callback([o] {
    std::string text;
    try {
      text = io::read_input_file(o->file, io::kMaxTraceFileBytes, "trace file");
    } catch (const std::runtime_error& e) {
      throw CliError(e.what());
    }
    try {
      const trace::TraceFile t = trace::read_trace_file(text, o->file);
      const std::string stalls = trace::stall_table(t, trace::find_stalls(t), o->top, o->file);
      // The heading line, then the critical path, then the stalls.
      const std::size_t heading = stalls.find('\n') + 1;
      std::cout << stalls.substr(0, heading) << trace::path_table(t, trace::trace_critical_path(t), o->top)
                << stalls.substr(heading);
    } catch (const trace::TraceFileError& e) {
      throw CliError(e.what());
    }
  });
}

}  // namespace treesim::tools
