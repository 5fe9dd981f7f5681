// `treesim plot KIND INPUT --out FILE`: charts of sweeps and reports. The work is Python with
// matplotlib (tools/treesim_plot.py, copied beside the binary by the build); this hands it the
// arguments as they are.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "tools/cli.h"

namespace treesim::tools {
namespace {

// Debian's python3-matplotlib is for the system python3; another python3 first on PATH (a virtual
// environment, pyenv) may lack it, so the system one is preferred when present.
std::string python() { return ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3"; }

std::string plot_script() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  const std::filesystem::path script = exe.parent_path() / "treesim_plot.py";
  if (ec || !std::filesystem::exists(script))
    throw CliError(
        fmt::format("plot: {} is missing (it is built beside the treesim binary)", script.string()), 1);
  return script.string();
}

}  // namespace

void add_plot_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "plot", "Chart a sweep's results.csv or a report: roofline, line, heatmap, traffic, layers");
  cmd->prefix_command();  // every argument goes to the script, whose --help describes them
  cmd->set_help_flag();
  cmd->callback([cmd] {
    std::vector<std::string> args{python(), plot_script()};
    for (const std::string& a : cmd->remaining()) args.push_back(a);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    ::execvp(argv[0], argv.data());
    throw CliError(fmt::format("plot: cannot run {} ({})", args[0], std::strerror(errno)), 1);
  });
}

}  // namespace treesim::tools
