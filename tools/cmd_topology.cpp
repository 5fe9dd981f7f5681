// `treesim topology`: the machine's tree as Graphviz DOT.
#include <sstream>

#include <fmt/format.h>

#include "sim/timing/cost_model.h"
#include "sim/topology/topology.h"
#include "tools/cli.h"
#include "tools/options.h"
#include "tools/output_set.h"

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
      ->check(unsigned_in(0, 64));
  cmd->add_option("--out,-o", o->out, "Write to this file instead of stdout");
  cmd->callback([o] {
    OutputSet outputs;
    const bool to_file = !o->out.empty() && o->out != "-";
    if (to_file) outputs.stage(o->out, "--out");
    const machine::MachineConfig machine = load_machine_or_throw(o->machine);
    const topology::Topology topo(machine);
    const timing::CostModel cost(machine);
    std::ostringstream dot;
    // Each link with its level's rates down and up and its latency, as the cost model reads them.
    topo.write_dot(dot, o->depth, [&](int level) {
      const auto l = static_cast<std::size_t>(level);
      const auto [down, latency] = cost.rate(timing::Resource::port(l, timing::Direction::kDown));
      return fmt::format("{}/{} B/c, {} c", down,
                         cost.rate(timing::Resource::port(l, timing::Direction::kUp)).first, latency);
    });
    if (!to_file) return emit(dot.str());
    outputs.write(o->out, dot.str(), "--out");
    outputs.commit();
  });
}

}  // namespace treesim::tools
