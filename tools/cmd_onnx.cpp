// `treesim onnx`: ONNX models on the machine — show a graph's placement, and run ONNX's backend
// test folders (model.onnx with test_data_set_*/{input,output}_N.pb) comparing every output.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>

#include "graph/onnx_file.h"
#include "graph/run.h"
#include "tools/cli.h"

namespace treesim::tools {
namespace {

namespace fs = std::filesystem;

graph::Model read_model_or_throw(const std::string& path) {
  kernels::Result<graph::Model> m = graph::read_onnx_model(path);
  if (!m) throw CliError(first_error(m.errors()));
  return std::move(m.value());
}

std::string value_text(const graph::ValueInfo& v) {
  std::string dims;
  for (std::size_t i = 0; i < v.shape.size(); ++i)
    dims += (i ? "," : "") + (v.shape[i] < 0 ? std::string("?") : std::to_string(v.shape[i]));
  return fmt::format("{} {}[{}]", v.name, v.type_name, dims);
}

void show(const std::string& path) {
  const graph::Model model = read_model_or_throw(path);
  std::string out = fmt::format("{}: opset {}, {} node{}\n", path, model.opset, model.nodes.size(),
                                model.nodes.size() == 1 ? "" : "s");
  for (const auto& v : model.inputs) out += "  input  " + value_text(v) + "\n";
  for (const auto& v : model.outputs) out += "  output " + value_text(v) + "\n";
  std::size_t unsupported = 0;
  for (const graph::Node& n : model.nodes) {
    const graph::Placement p = graph::place_node(n, model.opset);
    unsupported += p.where == graph::Placement::Where::kUnsupported;
    out += fmt::format("  {:<36} {:<12} {}\n", graph::node_label(n), graph::where_name(p.where), p.what);
  }
  out += unsupported == 0 ? "every node can run\n"
                          : fmt::format("{} node{} cannot run\n", unsupported, unsupported == 1 ? "" : "s");
  emit(out);
}

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

graph::Tensor tensor_or_throw(const fs::path& path) {
  kernels::Result<graph::Tensor> t = graph::read_onnx_tensor(path.string());
  if (!t) throw CliError(first_error(t.errors()));
  return std::move(t.value());
}

// Files NAME_0.pb, NAME_1.pb, ... in order.
std::vector<fs::path> numbered(const fs::path& dir, const std::string& stem) {
  std::vector<fs::path> files;
  for (std::size_t i = 0;; ++i) {
    fs::path p = dir / fmt::format("{}_{}.pb", stem, i);
    if (!fs::exists(p)) break;
    files.push_back(p);
  }
  return files;
}

int run_test(const std::string& dir, const std::string& machine_path, bool verify) {
  const fs::path root(dir);
  if (!fs::is_directory(root))
    throw CliError(fmt::format("{}: not a folder (expected an ONNX backend test case)", dir));
  const graph::Model model = read_model_or_throw((root / "model.onnx").string());
  if (core::Errors e = graph::unsupported_nodes(model); !e.empty()) throw CliError(first_error(e));
  std::vector<fs::path> sets;
  for (const auto& entry : fs::directory_iterator(root))
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(entry.path());
  std::sort(sets.begin(), sets.end());
  if (sets.empty()) throw CliError(fmt::format("{}: no test_data_set_* folder", dir));
  const machine::MachineConfig machine = load_machine_or_throw(machine_path);
  models::Simulation sim(machine);
  const std::string name =
      root.filename().empty() ? root.parent_path().filename().string() : root.filename().string();
  bool all = true;
  std::string out;
  for (const fs::path& set : sets) {
    const std::vector<fs::path> in_files = numbered(set, "input"), out_files = numbered(set, "output");
    if (in_files.size() != model.inputs.size())
      throw CliError(fmt::format("{}: {} input files for the graph's {} inputs", set.string(),
                                 in_files.size(), model.inputs.size()));
    if (out_files.size() != model.outputs.size())
      throw CliError(fmt::format("{}: {} output files for the graph's {} outputs", set.string(),
                                 out_files.size(), model.outputs.size()));
    std::map<std::string, graph::Tensor> inputs;
    for (std::size_t i = 0; i < in_files.size(); ++i)
      inputs[model.inputs[i].name] = tensor_or_throw(in_files[i]);
    graph::GraphRunOptions options;
    options.verify = verify;
    kernels::Result<graph::GraphRun> run = graph::run_graph(model, std::move(inputs), machine, sim, options);
    if (!run) throw CliError(fmt::format("{}: {}", name, first_error(run.errors())));
    for (const graph::NodeRun& n : run->nodes)
      if (n.verify && !n.verify->ok) {
        all = false;
        out += fmt::format("{} {}: {}: FAIL against the host reference: {}\n", name, set.filename().string(),
                           n.label, n.verify->first_mismatch);
      }
    for (std::size_t i = 0; i < out_files.size(); ++i) {
      const graph::Tensor expected = tensor_or_throw(out_files[i]);
      const std::string& oname = model.outputs[i].name;
      std::uint64_t differ = 0;
      const std::string why = compare(run->outputs.at(oname), expected, differ);
      all = all && why.empty();
      const bool exact = expected.type != graph::ElemType::kFloat32;
      out +=
          fmt::format("{} {} output {}: {} ({} {}, {}; {} cycles on the machine)\n", name,
                      set.filename().string(), oname, why.empty() ? "pass" : "FAIL: " + why, expected.count(),
                      graph::describe(expected), exact ? "exact" : "rtol 1e-3, atol 1e-7", run->cycles);
    }
  }
  emit(out);
  return all ? 0 : 1;
}

}  // namespace

void add_onnx_command(CLI::App& app) {
  auto* onnx = app.add_subcommand("onnx", "ONNX models: show a graph's placement, run backend test cases");
  onnx->require_subcommand(1);

  auto* show_cmd =
      onnx->add_subcommand("show", "The graph's inputs, outputs and nodes, and where each node runs");
  auto model = std::make_shared<std::string>();
  show_cmd->add_option("MODEL", *model, "An .onnx file")->required();
  show_cmd->callback([model] { show(*model); });

  auto* test_cmd = onnx->add_subcommand(
      "test", "Run an ONNX backend test case folder (model.onnx, test_data_set_*) and compare every output");
  auto dir = std::make_shared<std::string>();
  auto machine = std::make_shared<std::string>();
  auto no_verify = std::make_shared<bool>(false);
  test_cmd
      ->add_option("DIR", *dir,
                   "The test case folder, e.g. /usr/share/libonnx-testdata/data/node/test_qlinearmatmul_2D")
      ->required();
  test_cmd->add_option("--machine", *machine, "Machine file (YAML), e.g. configs/mini.yaml")->required();
  test_cmd->add_flag("--no-verify", *no_verify, "Skip checking each machine node against its host reference");
  test_cmd->callback([dir, machine, no_verify] {
    const int status = run_test(*dir, *machine, !*no_verify);
    if (status != 0) throw CliError("some outputs differ", status);
  });
}

}  // namespace treesim::tools
