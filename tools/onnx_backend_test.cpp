#include "tools/onnx_backend_test.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "kernels/graph/backend_test.h"
#include "kernels/graph/onnx_file.h"
#include "sim/core/echo.h"
#include "tools/cli.h"
#include "tools/kernel_options.h"
#include "tools/session/graph_run.h"

namespace treesim::tools {

graph::Fusion read_model_or_throw(const std::string& path) {
  kernels::Result<graph::Model> m = graph::read_onnx_model(path);
  if (!m) throw CliError(first_error(m.errors()));
  return graph::fuse_qdq(m.value());
}

namespace {

namespace fs = std::filesystem;

// ONNX's backend test runner compares floats with rtol 1e-3, atol 1e-7 unless a test says otherwise.
constexpr double kRtol = 1e-3, kAtol = 1e-7;

// "" when equal (integers exactly, floats within the tolerance), else the first difference.
std::string compare(const graph::Tensor& got, const graph::Tensor& expected, std::uint64_t& differ) {
  differ = 0;
  if (got.type != expected.type || got.shape != expected.shape)
    return fmt::format("got {}, expected {}", graph::describe(got), graph::describe(expected));
  std::string first;
  for (std::uint64_t i = 0; i < got.count(); ++i) {
    bool same;
    if (got.type == graph::ElemType::kFloat32) {
      const double g = got.real(i), e = expected.real(i);
      same = (std::isnan(g) && std::isnan(e)) || std::fabs(g - e) <= kAtol + kRtol * std::fabs(e);
    } else {
      same = got.integer(i) == expected.integer(i);
    }
    if (same) continue;
    if (differ++ == 0)
      first = got.type == graph::ElemType::kFloat32
                  ? fmt::format("[{}]: got {}, expected {}", i, got.real(i), expected.real(i))
                  : fmt::format("[{}]: got {}, expected {}", i, got.integer(i), expected.integer(i));
  }
  return differ ? fmt::format("{} of {} values differ; first {}", differ, got.count(), first) : "";
}

}  // namespace

int run_onnx_backend_test(const std::string& dir, const std::string& machine_path, bool verify) {
  const graph::BackendFolder folder = take(graph::load_backend_folder(dir));
  const graph::Model model = take(graph::backend_model(folder)).model;
  if (core::Errors e = graph::unsupported_nodes(model); !e.empty()) throw CliError(first_error(e));
  const std::vector<graph::BackendSet> sets = take(graph::backend_sets(folder, model));
  const machine::MachineConfig machine = load_machine_or_throw(machine_path);
  models::Simulation sim(machine);
  const fs::path root(dir);
  const std::string name =
      root.filename().empty() ? root.parent_path().filename().string() : root.filename().string();
  bool all = true;
  std::string out;
  for (const graph::BackendSet& set : sets) {
    std::map<std::string, graph::Tensor> inputs;
    for (std::size_t i = 0; i < set.inputs.size(); ++i) inputs[model.inputs[i].name] = set.inputs[i];
    graph::GraphRunOptions options;
    options.verify = verify;
    kernels::Result<graph::GraphRun> run = graph::run_graph(model, std::move(inputs), machine, sim, options);
    if (!run) throw CliError(fmt::format("{}: {}", name, first_error(run.errors())));
    for (const graph::NodeRun& n : run->nodes)
      if (n.verify && !n.verify->ok) {
        all = false;
        out += fmt::format("{} {}: {}: FAIL against the host reference: {}\n", name, set.name, n.label,
                           n.verify->first_mismatch);
      }
    for (std::size_t i = 0; i < set.outputs.size(); ++i) {
      const graph::Tensor& expected = set.outputs[i];
      const std::string& oname = model.outputs[i].name;
      std::uint64_t differ = 0;
      const std::string why = compare(run->outputs.at(oname), expected, differ);
      all = all && why.empty();
      const bool exact = expected.type != graph::ElemType::kFloat32;
      out += fmt::format("{} {} output {}: {} ({} {}, {}; {} cycles on the machine)\n", name, set.name, oname,
                         why.empty() ? "pass" : "FAIL: " + why, expected.count(), graph::describe(expected),
                         exact ? "exact" : "rtol 1e-3, atol 1e-7", run->cycles);
    }
  }
  emit(out);
  return all ? 0 : 1;
}

}  // namespace treesim::tools
