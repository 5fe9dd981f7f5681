// treesim: the command line. Parses options with CLI11, dispatches to one subcommand, and turns
// errors into a one-line message on stderr with a non-zero exit status.
#include <cstdlib>
#include <iostream>

#include <CLI/CLI.hpp>
#include <systemc>

#include "tools/cli.h"

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
  treesim::tools::add_topology_command(app);
  treesim::tools::add_layout_command(app);
  treesim::tools::add_dpt_command(app);
  treesim::tools::add_quant_command(app);
  treesim::tools::add_exec_command(app);
  treesim::tools::add_place_command(app);
  treesim::tools::add_run_command(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0 in CLI11; real ones get one line.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "treesim: " << e.what() << "\n";
    return treesim::tools::kExitBadInput;
  } catch (const treesim::tools::CliError& e) {
    std::cerr << "treesim: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "treesim: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
