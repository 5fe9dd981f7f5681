// `treesim topology`: the machine's tree as Graphviz DOT.
#include <sstream>

#include "sim/topology/topology.h"
#include "tools/cli.h"

namespace treesim::tools {

void add_topology_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("topology", "Write the machine's tree as Graphviz DOT");
  struct Options {
    std::string machine;
    bool dot = false;
    std::optional<std::size_t> depth;
    std::string out;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("--machine", o->machine, "Machine file (YAML)")->required();
  cmd->add_flag("--dot", o->dot, "Write Graphviz DOT (the only format so far)")->required();
  cmd->add_option("--depth", o->depth, "Stop after this many levels below the board (0 = board only)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--out,-o", o->out, "Write to this file instead of stdout");
  cmd->callback([o] {
    topology::Topology topo(load_machine_or_throw(o->machine));
    std::ostringstream dot;
    topo.write_dot(dot, o->depth);
    emit(dot.str(), o->out);
  });
}

}  // namespace treesim::tools
