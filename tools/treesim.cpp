// treesim: the command line. Parses options with CLI11, dispatches to one subcommand, and turns
// errors into a one-line message on stderr with a non-zero exit status.
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>
#include <systemc>

#include "models/host/host_pages.h"
#include "sim/core/echo.h"
#include "tools/cli.h"
#include "tools/options.h"

namespace {

// The heap is reserved before any library's static initialisers run (the executable's
// .preinit_array comes first): SystemC's allocate and clear 3 MiB, which would otherwise take
// 768 page faults (8 ms on this project's machine) before main.
void reserve_heap_first(int, char**, char**) { treesim::host::reserve_huge_page_heap(); }
__attribute__((section(".preinit_array"),
               used)) void (*const reserve_heap_entry)(int, char**, char**) = &reserve_heap_first;

}  // namespace

int main(int argc, char** argv) {
  // Keep stdout clean for summaries and --json: no SystemC banner and no informational reports.
  // The process's settings, made here once and never by the libraries.
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  CLI::App app{"treesim: a cycle-approximate simulator of tree-structured deep-learning accelerators"};
  app.set_version_flag("--version", std::string("treesim ") + TREESIM_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  treesim::tools::add_info_command(app);
  treesim::tools::add_dram_command(app);
  treesim::tools::add_topology_command(app);
  treesim::tools::add_layout_command(app);
  treesim::tools::add_dpt_command(app);
  treesim::tools::add_quant_command(app);
  treesim::tools::add_exec_command(app);
  treesim::tools::add_place_command(app);
  treesim::tools::add_run_command(app);
  treesim::tools::add_sweep_command(app);
  treesim::tools::add_tune_command(app);
  treesim::tools::add_plot_command(app);
  treesim::tools::add_trace_command(app);
  treesim::tools::add_sparse_command(app);
  treesim::tools::add_onnx_command(app);

  // Every error is one line, `treesim: WHERE: what was expected, got what`; exit status 2 for bad
  // input, 1 only for an internal error (a bug, or the host running out of memory).
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help and --version
    std::cerr << "treesim: " << treesim::tools::format_parse_error(app, e) << "\n";
    return treesim::tools::kExitBadInput;
  } catch (const treesim::tools::CliError& e) {
    std::cerr << "treesim: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::bad_alloc&) {
    std::cerr
        << "treesim: internal error: out of memory (a size limit was missed; please report the input)\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "treesim: internal error: " << treesim::core::echo(e.what(), 200) << "\n";
    return 1;
  }
  return 0;
}
