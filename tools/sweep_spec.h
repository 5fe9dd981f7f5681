// A sweep specification (YAML): a base machine, a kernel with its options, and the axes to vary.
// Expanding it gives the points, each a machine file's text and a `treesim run` command line.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "sim/machine/machine_config.h"

namespace treesim::tools {

// One varied field: a machine field path (machine_patch.h) or a `treesim run` option name.
struct SweepAxis {
  std::string path;
  bool machine = false;
  std::vector<std::string> values;
};

struct SweepSpec {
  std::string file;          // the spec as named on the command line
  std::string machine_path;  // the base machine, relative to the spec's folder when not absolute
  std::string machine_text;  // its YAML
  machine::MachineConfig base;
  std::string kernel;
  std::vector<std::pair<std::string, std::string>> options;  // fixed options, in the spec's order
  std::vector<SweepAxis> axes;                               // grid axes first, then zip axes
  std::size_t grid_axes = 0;
};

struct SweepPoint {
  std::size_t index = 0;
  std::vector<std::string> values;  // one per axis
};

// Reads and checks a spec; errors are CliErrors `SPEC:LINE:COL: message`.
SweepSpec load_sweep_spec(const std::string& path);
// Its parsing half: a spec's text; `path` names it in messages and locates a relative machine file.
SweepSpec parse_sweep_spec(const std::string& text, const std::string& path);

// Every point: the grid's product in the order written (the last axis fastest), each combined with
// every entry of the zipped lists (fastest of all).
std::vector<SweepPoint> expand(const SweepSpec& spec);

// The point's machine file text: the base with the point's machine fields set. Errors (a path that
// addresses nothing) are one line naming the axis.
std::string point_machine_yaml(const SweepSpec& spec, const SweepPoint& point, std::string& error);

// The point's `treesim run` arguments after `run`, without --machine and the output options.
std::vector<std::string> point_run_args(const SweepSpec& spec, const SweepPoint& point);

}  // namespace treesim::tools
