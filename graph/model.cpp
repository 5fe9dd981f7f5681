#include "graph/model.h"

#include "sim/core/echo.h"

namespace treesim::graph {

std::string node_label(const Node& node) {
  // Names from a file are echoed (control characters escaped, length capped): errors stay one line.
  const std::string op = core::echo(node.op_type);
  return node.name.rfind('#', 0) == 0 ? op + " " + node.name : op + " '" + core::echo(node.name) + "'";
}

}  // namespace treesim::graph
