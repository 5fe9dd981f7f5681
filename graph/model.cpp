#include "graph/model.h"

namespace treesim::graph {

std::string node_label(const Node& node) {
  return node.name.rfind('#', 0) == 0 ? node.op_type + " " + node.name
                                      : node.op_type + " '" + node.name + "'";
}

}  // namespace treesim::graph
