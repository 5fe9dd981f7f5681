// The C++ half of the `treesim` Python module (python/treesim/__init__.py is the rest): what needs
// no simulation. Machine files and dicts are read and checked by the CLI's own parser here, in the
// Python process, so that a bad machine is an exception at once; simulations run in worker
// processes, because SystemC elaborates once per process.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "sim/machine/machine_file.h"
#include "sim/timing/machine_summary.h"

namespace py = pybind11;

namespace treesim::python {
namespace {

// The machine's summary (as `treesim info` prints it) as a dict.
py::dict summary_dict(const machine::MachineConfig& config) {
  const timing::MachineSummary s = timing::summarize(config);
  py::list levels;
  for (const timing::LevelSummary& l : s.levels) {
    py::dict d;
    d["name"] = l.name;
    d["fanout"] = l.fanout;
    d["units"] = l.units;
    d["memory_bytes_per_unit"] = l.memory_bytes_per_unit;
    d["latency_cycles"] = l.latency_cycles;
    d["reduce"] = l.reduce;
    levels.append(d);
  }
  py::dict d;
  d["name"] = s.name;
  d["clock_ghz"] = s.clock_ghz;
  d["levels"] = levels;
  d["pes"] = s.pes;
  d["lm_bytes_per_pe"] = s.lm_bytes_per_pe;
  d["peak_int8_ops_per_second"] = s.peak_int8_ops_per_second;
  d["dram_bytes"] = s.dram_bytes;
  d["path_latency_cycles"] = s.path_latency_cycles;
  return d;
}

}  // namespace
}  // namespace treesim::python

PYBIND11_MODULE(_treesim, m) {
  using namespace treesim;
  m.doc() = "treesim's machine files, read and checked in process (the simulations run in workers)";
  // A machine file's one-line error (FILE:LINE:COL: field '...': expected ..., got ...).
  py::register_exception<machine::MachineFileError>(m, "MachineFileError", PyExc_ValueError);
  m.def(
      "load_machine",
      [](const std::string& path) { return python::summary_dict(machine::load_machine_file(path)); },
      py::arg("path"), "Read and check a machine file; its summary as a dict");
  m.def(
      "parse_machine",
      [](const std::string& text, const std::string& name) {
        return python::summary_dict(machine::parse_machine_yaml(text, name));
      },
      py::arg("text"), py::arg("name"),
      "Check a machine given as YAML (or JSON) text; its summary as a dict");
  m.attr("default_binary") = TREESIM_BINARY;
}
