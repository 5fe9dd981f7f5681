// `treesim onnx`: ONNX models on the machine — show a graph's placement, run a model on inputs, and
// run ONNX's backend test folders (tools/onnx_backend_test.cpp).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "kernels/graph/fuse.h"
#include "kernels/graph/onnx_file.h"
#include "sim/core/checked.h"
#include "sim/core/echo.h"
#include "sim/io/npy.h"
#include "sim/trace/trace_merge.h"
#include "tools/cli.h"
#include "tools/onnx_backend_test.h"
#include "tools/output_set.h"
#include "tools/session/graph_run.h"

namespace treesim::tools {
namespace {

namespace fs = std::filesystem;

std::string value_text(const graph::ValueInfo& v) { return v.name + " " + graph::declared_text(v); }

// `onnx show --machine` plans by running the graph on zero inputs it makes: past this many bytes of
// them it refuses (docs/onnx.md, Limits), so that a small file cannot make it allocate gigabytes.
constexpr std::uint64_t kMaxShowInputBytes = std::uint64_t{256} << 20;

struct ShowConfig {
  std::string model, machine;
  bool has_machine = false;  // --machine given (an empty path is refused, not taken for none)
  std::uint64_t batch = 1;
};

// The model run once on the machine with zero inputs (a dimension without a size is `batch`): each
// node's record, for the plan its programs take. Zero inputs suffice: no plan depends on values.
graph::GraphRun plan_run(const graph::Model& model, const ShowConfig& c,
                         const machine::MachineConfig& machine) {
  std::map<std::string, graph::Tensor> inputs;
  // Their sizes first, against the machine's DRAM and the most show plans with: nothing is
  // allocated by a declaration before it is known to fit (a dimension without a size is --batch's).
  const std::uint64_t limit = std::min<std::uint64_t>(machine.dram.bytes, kMaxShowInputBytes);
  std::uint64_t total = 0;
  std::vector<std::vector<std::uint64_t>> shapes;  // each input's, made once every size is checked
  for (const graph::ValueInfo& v : model.inputs) {
    if (!v.type)
      throw CliError(
          fmt::format("input '{}' is {}, which treesim does not take", core::echo(v.name), v.type_name));
    std::optional<std::uint64_t> bytes = graph::elem_bytes(*v.type);
    bool batched = false;
    std::vector<std::uint64_t>& dims = shapes.emplace_back();
    for (std::int64_t d : v.shape) {
      batched = batched || d < 0;
      dims.push_back(d < 0 ? c.batch : static_cast<std::uint64_t>(d));
      if (bytes) bytes = core::checked_mul(*bytes, dims.back());
    }
    const std::optional<std::uint64_t> sum = bytes ? core::checked_add(total, *bytes) : std::nullopt;
    if (!sum || *sum > limit)
      throw CliError(fmt::format("{}: input '{}' {}{} makes the inputs {} bytes, more than {} ({})",
                                 batched ? "--batch" : core::echo(c.model), core::echo(v.name),
                                 graph::declared_text(v), batched ? fmt::format(" at batch {}", c.batch) : "",
                                 sum ? fmt::to_string(*sum) : "more than 2^64", limit,
                                 limit == machine.dram.bytes
                                     ? "the machine's DRAM"
                                     : "the most `onnx show` plans with; `onnx run` takes more"));
    total = *sum;
  }
  for (std::size_t i = 0; i < model.inputs.size(); ++i)
    inputs[model.inputs[i].name] = graph::make_tensor(*model.inputs[i].type, std::move(shapes[i]));
  models::Simulation sim(machine);
  kernels::Result<graph::GraphRun> r = graph::run_graph(model, std::move(inputs), machine, sim);
  if (!r) throw CliError(first_error(r.errors()));
  return std::move(r.value());
}

void show(const ShowConfig& c) {
  const graph::Fusion fusion = read_model_or_throw(c.model);
  const graph::Model& model = fusion.model;
  std::string out = fmt::format("{}: opset {}, {} node{}{}\n", c.model, model.opset, model.nodes.size(),
                                model.nodes.size() == 1 ? "" : "s",
                                fusion.fused ? fmt::format(" after fusing {} Q/DQ pattern{}", fusion.fused,
                                                           fusion.fused == 1 ? "" : "s")
                                             : "");
  for (const auto& v : model.inputs) out += "  input  " + value_text(v) + "\n";
  for (const auto& v : model.outputs) out += "  output " + value_text(v) + "\n";
  std::size_t unsupported = 0;
  for (const graph::Node& n : model.nodes)
    unsupported += graph::place_node(n, model.opset).where == graph::Placement::Where::kUnsupported;
  // With a machine (and every node able to run): the plan of each machine node's programs.
  std::optional<graph::GraphRun> run;
  std::optional<machine::MachineConfig> machine;
  if (c.has_machine) {
    machine = load_machine_or_throw(c.machine);
    if (unsupported == 0) run = plan_run(model, c, *machine);
  }
  for (std::size_t i = 0; i < model.nodes.size(); ++i) {
    const graph::Node& n = model.nodes[i];
    const graph::Placement p = graph::place_node(n, model.opset);
    out += fmt::format("  {:<36} {:<12} {}{}\n", graph::node_label(n), graph::where_name(p.where), p.what,
                       p.detail.empty() ? "" : ", " + p.detail);
    if (!run || p.where != graph::Placement::Where::kMachine) continue;
    const graph::NodeRun& r = run->nodes[i];
    if (r.program_nodes > 1 && r.program_first == r.label)
      out += fmt::format("      one program for the next {} machine nodes\n", r.program_nodes);
    if (r.chain_length > 0)
      out += fmt::format(
          "      a GEMM chain of {} nodes, {} of the {} activations between them kept in the LMs\n",
          r.chain_length, r.activations_in_lm.value_or(0), r.chain_length - 1);
    if (!r.plan.empty()) {
      std::string plan = r.plan;  // planners describe in lines: indent each
      for (std::size_t at = plan.find('\n'); at != std::string::npos; at = plan.find('\n', at + 7))
        plan.replace(at, 1, "\n      ");
      out += fmt::format("      {}\n", plan);
    }
    out += fmt::format("      {}: {} cycles, DRAM read {} B, written {} B\n",
                       r.program_nodes > 1 || r.plan.empty()
                           ? std::string("its phase")
                           : fmt::format("{} program{}", r.programs, r.programs == 1 ? "" : "s"),
                       r.cycles, r.dram_read, r.dram_written);
  }
  out += unsupported == 0 ? "every node can run"
                          : fmt::format("{} node{} cannot run", unsupported, unsupported == 1 ? "" : "s");
  if (run)
    out += fmt::format("; on {} (batch {}): {} program{}, {} cycles", machine->name, c.batch, run->programs,
                       run->programs == 1 ? "" : "s", run->cycles);
  else if (c.has_machine)
    out += ", so there is no plan";
  emit(out + "\n");
}

// A graph tensor from an .npy array (int8, uint8, int32 or float32).
graph::Tensor tensor_of_npy(const io::NpyArray& a, const std::string& where) {
  graph::Tensor t;
  switch (a.dtype) {
    case core::DType::kInt8:
      t.type = graph::ElemType::kInt8;
      break;
    case core::DType::kUInt8:
      t.type = graph::ElemType::kUInt8;
      break;
    case core::DType::kInt32:
      t.type = graph::ElemType::kInt32;
      break;
    case core::DType::kFloat32:
      t.type = graph::ElemType::kFloat32;
      break;
    default:
      throw CliError(fmt::format("{}: expected an int8, uint8, int32 or float32 array, got {}", where,
                                 core::dtype_name(a.dtype)));
  }
  t.shape = a.shape;
  t.bytes = a.bytes;
  return t;
}

io::NpyArray npy_of_tensor(const graph::Tensor& t, const std::string& name) {
  io::NpyArray a;
  const std::optional<core::DType> d = t.type == graph::ElemType::kFloat32
                                           ? std::optional<core::DType>(core::DType::kFloat32)
                                           : graph::machine_dtype(t.type);
  if (!d)
    throw CliError(
        fmt::format("--out: output '{}' is {}, which .npy files here do not hold", name, graph::describe(t)));
  a.dtype = *d;
  a.shape = t.shape;
  a.bytes = t.bytes;
  return a;
}

// An output's file name in --out: NAME.npy, with characters other than letters, digits, '_', '-' and '.'
// as '_' (PyTorch names tensors like "/fc1/Gemm_output_0").
std::string npy_name(const std::string& name) {
  std::string f;
  for (char ch : name)
    f += std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.' ? ch : '_';
  if (f.empty() || f[0] == '.') f = "_" + f;
  return f + ".npy";
}

struct RunCommand {
  std::string model, machine, out_dir, report, trace_json;
  std::vector<std::string> inputs;  // NAME=FILE.npy
  bool verify = false;
  bool via_dram = false;
};

void run(const RunCommand& c) {
  const graph::Model model = read_model_or_throw(c.model).model;
  if (core::Errors e = graph::unsupported_nodes(model); !e.empty()) throw CliError(first_error(e));
  // Every output path is checked (staged) before any is made: a report that cannot be written
  // leaves no --out folder behind, and a failed run removes what was staged.
  OutputSet files;
  if (!c.report.empty()) files.stage(c.report, "--report");
  std::string staged_trace;
  if (!c.trace_json.empty()) staged_trace = files.stage(c.trace_json, "--trace-json");
  std::map<std::string, graph::Tensor> inputs;
  for (const std::string& given : c.inputs) {
    const auto eq = given.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == given.size())
      throw CliError(fmt::format("--input: expected NAME=FILE.npy, got '{}'", given));
    const std::string name = given.substr(0, eq), path = given.substr(eq + 1);
    io::NpyArray a;
    try {
      a = io::read_npy(path);
    } catch (const io::NpyError& e) {
      throw CliError(e.what());
    }
    const auto declared = std::find_if(model.inputs.begin(), model.inputs.end(),
                                       [&](const graph::ValueInfo& v) { return v.name == name; });
    if (declared == model.inputs.end()) {
      std::string names;
      for (const auto& in : model.inputs) names += (names.empty() ? "" : ", ") + core::echo(in.name, 40);
      throw CliError(fmt::format("--input: the graph has no input '{}' (its inputs: {})", core::echo(name),
                                 names.empty() ? "none" : names));
    }
    graph::Tensor t = tensor_of_npy(a, path);
    if (std::string why = graph::declaration_mismatch(*declared, t); !why.empty())
      throw CliError(fmt::format("--input: {}: {}", core::echo(path), why));
    if (!inputs.emplace(name, std::move(t)).second)
      throw CliError(fmt::format("--input: '{}' is given twice", core::echo(name)));
  }
  for (const auto& in : model.inputs)
    if (!inputs.count(in.name))
      throw CliError(fmt::format("--input: the graph's input '{}' ({}) is not given (NAME=FILE.npy)", in.name,
                                 value_text(in)));
  if (!c.out_dir.empty()) files.stage_folder(c.out_dir, "--out");
  std::map<std::string, std::string> staged;
  if (!c.out_dir.empty())
    for (const auto& o : model.outputs)
      staged[o.name] = files.stage((fs::path(c.out_dir) / npy_name(o.name)).string(), "--out");
  const machine::MachineConfig machine = load_machine_or_throw(c.machine);
  models::Simulation sim(machine);
  graph::GraphRunOptions options;
  options.verify = c.verify;
  options.chain = !c.via_dram;
  // --trace-json: every program's trace beside the staged output (removed after the run, whatever
  // happens), merged on one time axis.
  struct Parts {
    std::vector<trace::TracePart> list;
    ~Parts() {
      std::error_code ignored;
      for (const trace::TracePart& p : list) fs::remove(p.path, ignored);
    }
  } traces;
  if (!c.trace_json.empty()) {
    options.trace_path = [&traces, staged_trace](const std::string& node) {
      traces.list.push_back({node, fmt::format("{}.part{}.json", staged_trace, traces.list.size())});
      return traces.list.back().path;
    };
  }
  kernels::Result<graph::GraphRun> r = graph::run_graph(model, std::move(inputs), machine, sim, options);
  if (!r) throw CliError(first_error(r.errors()));
  if (!c.trace_json.empty()) {
    try {
      files.write(c.trace_json, trace::merge_traces(traces.list).dump() + "\n", "--trace-json");
    } catch (const std::runtime_error& e) {
      throw CliError(e.what());
    }
  }
  std::size_t on_machine = 0;
  bool verified = true;
  nlohmann::json nodes = nlohmann::json::array();
  std::string lines;
  for (const graph::NodeRun& n : r->nodes) {
    const bool machine_node = n.placement.where == graph::Placement::Where::kMachine;
    on_machine += machine_node;
    std::string check;
    if (n.verify) {
      verified = verified && n.verify->ok;
      check = n.verify->ok ? ", verify ok" : ", verify FAILED: " + n.verify->first_mismatch;
    }
    if (n.output_in_lm) check = ", its output kept in the LMs for the next node" + check;
    if (n.program_nodes > 1 && n.program_first == n.label)
      lines += fmt::format("  one program for the next {} machine nodes:\n", n.program_nodes);
    const std::string chain =
        n.chain_length > 0 ? fmt::format(" (a GEMM chain of {}, {} of {} activations kept in the LMs)",
                                         n.chain_length, n.activations_in_lm.value_or(0), n.chain_length - 1)
                           : "";
    if (!machine_node)
      lines += fmt::format("  {:<36} host     {}\n", n.label, n.placement.what);
    else if (n.program_nodes > 1)
      lines += fmt::format("  {:<36} machine  {}{}: its phase {} cycles, {} MACs issued{}\n", n.label,
                           n.placement.what, chain, n.cycles, n.macs, check);
    else
      lines += fmt::format("  {:<36} machine  {}{}: {} program{}, {} cycles, {} MACs issued{}\n", n.label,
                           n.placement.what, chain, n.programs, n.programs == 1 ? "" : "s", n.cycles, n.macs,
                           check);
    nlohmann::json j = {{"node", n.label},
                        {"runs_on", graph::where_name(n.placement.where)},
                        {"what", n.placement.what},
                        {"programs", n.programs},
                        {"cycles", n.cycles},
                        {"macs", n.macs},
                        {"dram_read_bytes", n.dram_read},
                        {"dram_write_bytes", n.dram_written}};
    if (n.verify) j["verify"] = {{"ok", n.verify->ok}, {"mismatches", n.verify->mismatches}};
    if (n.program_nodes > 1) j["program"] = {{"first", n.program_first}, {"nodes", n.program_nodes}};
    if (n.chain_length > 0) j["chain_length"] = n.chain_length;
    if (n.activations_in_lm) j["activations_in_lm"] = *n.activations_in_lm;
    if (n.output_in_lm) j["output_in_lm"] = true;
    nodes.push_back(std::move(j));
  }
  std::string out = fmt::format("{} on {}: {} node{} ({} on the machine), {} program{}, {} cycles\n", c.model,
                                machine.name, r->nodes.size(), r->nodes.size() == 1 ? "" : "s", on_machine,
                                r->programs, r->programs == 1 ? "" : "s", r->cycles) +
                    lines;
  nlohmann::json outputs = nlohmann::json::array();
  for (const auto& o : model.outputs) {
    const graph::Tensor& t = r->outputs.at(o.name);
    outputs.push_back({{"name", o.name},
                       {"file", npy_name(o.name)},
                       {"dtype", graph::elem_name(t.type)},
                       {"shape", t.shape}});
    if (!c.out_dir.empty()) {
      io::write_npy(staged.at(o.name), npy_of_tensor(t, o.name));
      out += fmt::format("output {} {} written to {}\n", o.name, graph::describe(t),
                         (fs::path(c.out_dir) / npy_name(o.name)).string());
    } else {
      out += fmt::format("output {} {}\n", o.name, graph::describe(t));
    }
  }
  if (!c.report.empty()) {
    nlohmann::json report = {{"model", c.model},        {"machine", machine.name}, {"cycles", r->cycles},
                             {"programs", r->programs}, {"nodes", nodes},          {"outputs", outputs}};
    files.write(c.report, report.dump(2) + "\n", "--report");
  }
  files.commit();
  emit(out);
  if (!verified) throw CliError("verify failed: a machine node's output differs from its host reference", 1);
}

}  // namespace

void add_onnx_command(CLI::App& app) {
  auto* onnx =
      app.add_subcommand("onnx", "ONNX models: show a graph's placement, run it, run backend test cases");
  onnx->require_subcommand(1);

  auto* show_cmd =
      onnx->add_subcommand("show", "The graph's inputs, outputs and nodes, and where each node runs");
  auto sc = std::make_shared<ShowConfig>();
  show_cmd->add_option("MODEL", sc->model, "An .onnx file")->required();
  CLI::Option* show_machine = show_cmd->add_option(
      "--machine", sc->machine, "Machine file (YAML): also plan every machine node (a run with zero inputs)");
  show_cmd->add_option("--batch", sc->batch, "The size of every input dimension without one (default 1)")
      ->check(CLI::Range(std::uint64_t{1}, std::uint64_t{1} << 20));
  show_cmd->callback([sc, show_machine] {
    sc->has_machine = show_machine->count() > 0;
    show(*sc);
  });

  auto* run_cmd = onnx->add_subcommand("run", "Run a model on a machine with inputs from .npy files");
  auto rc = std::make_shared<RunCommand>();
  run_cmd->add_option("MODEL", rc->model, "An .onnx file")->required();
  run_cmd->add_option("--machine", rc->machine, "Machine file (YAML), e.g. configs/mini.yaml")->required();
  run_cmd->add_option("--input", rc->inputs, "NAME=FILE.npy for each graph input (repeatable)");
  run_cmd->add_option("--out", rc->out_dir, "Write each graph output as DIR/NAME.npy");
  run_cmd->add_option("--report", rc->report, "Write the per-node report as JSON");
  run_cmd->add_option("--trace-json", rc->trace_json,
                      "Write every machine program's Chrome trace (ui.perfetto.dev) on one time axis");
  run_cmd->add_flag("--verify", rc->verify, "Check each machine node against its host reference");
  run_cmd->add_flag(
      "--via-dram", rc->via_dram,
      "Every machine node its own program, its inputs and output through the host (no GEMM chains)");
  run_cmd->callback([rc] { run(*rc); });

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
    const int status = run_onnx_backend_test(*dir, *machine, !*no_verify);
    if (status != 0) throw CliError("some outputs differ", status);
  });
}

}  // namespace treesim::tools
