#include "kernels/every_pe.h"

#include <fmt/format.h>

namespace treesim::kernels {

EveryPe every_pe(const machine::MachineConfig& m) {
  EveryPe e;
  for (const auto& l : m.levels) {
    if (l.fanout == 1) continue;
    e.levels += fmt::format("{}_{}, ", l.fanout, l.name);
    e.units *= l.fanout;
  }
  return e;
}

}  // namespace treesim::kernels
