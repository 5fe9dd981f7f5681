#include "sim/trace/gtkw_file.h"

#include <ostream>

#include <fmt/format.h>

namespace treesim::trace {
namespace {

// GTKWave trace flags (gtkwave's TR_* bits): right-justified binary, decimal, ASCII text; group
// begin and end markers (blank rows).
constexpr const char* kBit = "@28";
constexpr const char* kDecimal = "@24";
constexpr const char* kGroupBegin = "@800200";
constexpr const char* kGroupEnd = "@1000200";

}  // namespace

void write_gtkw(std::ostream& out, const std::string& vcd_name, const TraceLog& log,
                const topology::Topology& topo, const TraceFilter& filter) {
  const Selection sel = select_units(topo, filter, log, false);
  // The path: from the board, the first scoped child at each level.
  std::vector<topology::Unit> path;
  for (std::optional<topology::Unit> u = topo.board(); u;) {
    path.push_back(*u);
    std::optional<topology::Unit> next;
    for (topology::Unit c : topo.children(*u))
      if (sel.scope[c]) {
        next = c;
        break;
      }
    u = next;
  }
  out << "[*] treesim: the board, one path down the tree and its PE's units\n";
  out << fmt::format("[dumpfile] \"{}\"\n", vcd_name);
  out << "[timestart] 0\n[size] 1600 900\n[pos] -1 -1\n";
  for (topology::Unit u : path) out << "[treeopen] " << topo.path_name(u) << ".\n";
  out << "[sst_width] 260\n[signals_width] 300\n[sst_expanded] 1\n[sst_vpaned_height] 300\n";
  int colour = 0;
  for (topology::Unit u : path) {
    if (!sel.traced[u]) continue;
    const std::string name = topo.path_name(u);
    const int level = topo.level_of(u);
    colour = colour % 7 + 1;  // GTKWave's colours 1..7 (red … violet), one per group
    out << kGroupBegin << "\n-" << name << "\n";
    out << kDecimal << "\n[color] " << colour << "\n" << name << ".instr\n";
    for (Resource r : log.resources(level)) {
      out << kBit << "\n[color] " << colour << "\n" << name << "." << timing::trace_name(r) << "_busy\n";
      if (r.moves_bytes())
        out << kDecimal << "\n[color] " << colour << "\n"
            << name << "." << timing::trace_name(r) << "_bytes[31:0]\n";
    }
    out << kGroupEnd << "\n-" << name << "\n";
  }
  out << "[pattern_trace] 1\n[pattern_trace] 0\n";
}

}  // namespace treesim::trace
