// The elaborated SystemC hierarchy, as `treesim info --systemc` prints it: every module with its
// processes, sockets, ports and exports, in tree order.
#pragma once

#include <string>
#include <vector>

namespace treesim::models {

struct ModuleInfo {
  std::string name;                    // "board.sequencer"
  std::string kind;                    // its C++ class: "Sequencer"
  std::vector<std::string> processes;  // "issue (thread)"
  std::vector<std::string> sockets;    // "dram (initiator)"
  std::vector<std::string> ports;      // "levels (port, 4 bound)", "link (export)"
};

// Every sc_module of this process's elaboration. A socket's own helper port and export are part of
// the socket and not listed.
std::vector<ModuleInfo> hierarchy();

}  // namespace treesim::models
