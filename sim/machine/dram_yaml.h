// The `dram` section of a machine file (machine_yaml.cpp reads the rest): the simple model's rate
// and latency, or a banked model with its memspec (a file beside the machine file, or inline), and
// the channels per unit of a level.
#pragma once

#include <string>

#include "sim/machine/machine_config.h"
#include "sim/machine/yaml_reader.h"

namespace treesim::machine::detail {

// Reads `node` into c.dram (c.levels and c.clock_ghz already read). `machine_file` locates a
// memspec file given by a relative path.
void read_dram(const Reader& r, const YAML::Node& node, const YAML::Mark& fallback, MachineConfig& c,
               const std::string& machine_file);

// A memspec file's text (named `file` in messages): its device, checked field by field; throws
// MachineFileError. The parsing half of a machine file's `dram.banked.memspec: FILE`.
MemSpec parse_memspec(const std::string& text, const std::string& file);

}  // namespace treesim::machine::detail
