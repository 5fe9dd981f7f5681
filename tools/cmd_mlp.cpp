// `treesim run mlp`: a quantized MLP (tools/mlp/train.py's model folder) on Fashion-MNIST's test
// images, every layer of every batch simulated on one machine (qgemm or tgemm per layer), each
// layer's output checked bit-exactly against the host reference and fed to the next layer.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include "kernels/mlp/mlp_chain.h"
#include "kernels/mlp/mlp_layer.h"
#include "kernels/mlp/mlp_network.h"
#include "models/simulation.h"
#include "tools/session/run_problem.h"
#include "sim/io/idx.h"
#include "sim/io/npy.h"
#include "sim/report/report.h"
#include "tools/cli.h"
#include "tools/output_set.h"
#include "tools/run_options.h"

namespace treesim::tools {
namespace {

struct MlpCommand {
  std::string model_dir, machine, data_dir = "/usr/share/datasets/fashion-mnist", plan_file, out_path;
  bool chain_plan = false;  // --chain-plan: the chain planner's layouts, computed here
  bool via_dram = false;    // --via-dram: every layer its own program, activations through DRAM
  RunOptions run;           // --report is mlp's own JSON; -q, --timing-only as every kernel's
  std::uint64_t images = 100, batch = 1000;
};

// Per layer, summed over the batches.
struct LayerTotals {
  std::uint64_t cycles = 0, macs = 0, dram_read = 0, dram_written = 0;
  std::uint64_t convert_cycles = 0;      // its output's conversion on the tree (one program per batch)
  std::vector<std::uint64_t> down_sent;  // per level
  double energy_pj = 0;
  bool has_energy = false;
};

// DIR/NAME or DIR/NAME.gz, whichever exists (the plain file first).
std::string idx_path(const std::string& dir, const std::string& name) {
  const std::string plain = dir + "/" + name;
  if (std::filesystem::exists(plain) || !std::filesystem::exists(plain + ".gz")) return plain;
  return plain + ".gz";
}

io::IdxArray read_idx_or_throw(const std::string& path) {
  try {
    return io::read_idx(path);
  } catch (const io::IdxError& e) {
    throw CliError(e.what());
  }
}

std::string kind_of(const kernels::mlp::MlpLayer& l) { return l.ternary ? "ternary" : "int8"; }

void run_mlp(const MlpCommand& c) {
  namespace mlp = kernels::mlp;
  // Many programs run (every layer of every batch): one trace file cannot show them.
  if (!c.run.vcd_path.empty() || !c.run.json_path.empty())
    throw CliError(
        fmt::format("{}: run mlp simulates every layer of every batch as its own program; trace "
                    "one layer with run qgemm or run tgemm",
                    c.run.vcd_path.empty() ? "--trace-json" : "--vcd"));
  if (c.run.timing_only && !c.out_path.empty())
    throw CliError("--timing-only: moves no data, so --out has nothing to write");
  if (c.chain_plan && !c.plan_file.empty())
    throw CliError(
        "--chain-plan: give it or --plan-file, not both (a chain plan file is already a chain plan)");
  if (c.chain_plan && !c.via_dram)
    throw CliError(
        "--chain-plan: the chain plan is the default; with --via-dram it lays out each layer's own run");
  OutputSet files;
  if (!c.run.report_path.empty()) files.stage(c.run.report_path, "--report");
  if (!c.out_path.empty()) files.stage(c.out_path, "--out");
  const machine::MachineConfig machine = load_machine_or_throw(c.machine);
  mlp::MlpModel model;
  std::optional<mlp::NetworkPlan> file_plan;  // a plan file of per-layer layouts
  bool chain_file = false;                    // a chain plan file of `treesim tune chain`
  try {
    model = mlp::load_mlp_model(c.model_dir);
    if (!c.plan_file.empty()) {
      std::ifstream in(c.plan_file);
      std::stringstream text;
      text << in.rdbuf();
      chain_file = in && mlp::is_chain_plan_text(text.str());
      if (!chain_file) file_plan = mlp::load_plan_file(c.plan_file, model);
    }
  } catch (const mlp::MlpModelError& e) {
    throw CliError(e.what());
  }
  // One program per batch (the network's, activations in the LMs), unless --via-dram or a plan file
  // of per-layer layouts asks for every layer's own run through DRAM.
  const bool network = !c.via_dram && !file_plan;
  std::map<std::uint64_t, kernels::Plan> network_plans;  // by batch size
  // The layouts of every layer for a batch of `rows` images: the plan file's, the chain planner's
  // (from a chain plan file, or computed here with --chain-plan, once per batch size), or none (each
  // layer's kernel plans alone).
  std::map<std::uint64_t, mlp::NetworkPlan> chain_plans;
  const mlp::NetworkPlan none;
  auto network_plan = [&](std::uint64_t rows) -> const mlp::NetworkPlan& {
    if (file_plan) return *file_plan;
    if (!chain_file && !c.chain_plan) return none;
    auto it = chain_plans.find(rows);
    if (it != chain_plans.end()) return it->second;
    kernels::Result<mlp::NetworkPlan> p =
        chain_file ? mlp::chain_plan_file_layouts(c.plan_file, model, rows, machine)
                   : mlp::chain_network_plan(model, rows, machine);
    if (!p) {
      const std::string message = first_error(p.errors());
      throw CliError(chain_file ? message : fmt::format("the chain plan for {} images: {}", rows, message));
    }
    return chain_plans.emplace(rows, std::move(p.value())).first->second;
  };
  const std::string images_path = idx_path(c.data_dir, "t10k-images-idx3-ubyte");
  const std::string labels_path = idx_path(c.data_dir, "t10k-labels-idx1-ubyte");
  const io::IdxArray images = read_idx_or_throw(images_path);
  const io::IdxArray labels = read_idx_or_throw(labels_path);
  if (images.shape.size() != 3 || images.shape[1] * images.shape[2] != model.features)
    throw CliError(fmt::format("{}: expected images of {} pixels (N×H×W), got shape {}", images_path,
                               model.features, io::shape_string(images.shape)));
  if (labels.shape.size() != 1 || labels.shape[0] != images.shape[0])
    throw CliError(fmt::format("{}: expected {} labels (one per image), got shape {}", labels_path,
                               images.shape[0], io::shape_string(labels.shape)));
  if (c.images == 0 || c.images > images.shape[0])
    throw CliError(fmt::format("--images: expected 1 to {} (the images in {}), got {}", images.shape[0],
                               images_path, c.images));
  if (c.batch == 0) throw CliError("--batch: expected at least 1 image per batch");
  const std::uint64_t batch = std::min(c.batch, c.images);
  const std::uint64_t batches = (c.images + batch - 1) / batch;
  const std::size_t layers = model.layers.size();
  const std::uint64_t classes = model.layers.back().n;

  models::Simulation sim(machine, c.run.config());
  // A program of the run on `sim`, verified unless timing only; a mismatch is exit status 1.
  auto run_checked = [&](kernels::Problem& problem, const kernels::Plan& plan, const char* kernel,
                         const std::string& where) {
    session::RunOptions run;
    run.kernel = kernel;
    run.simulation.kernel = run.kernel;
    run.simulation.functional = !c.run.timing_only;
    run.simulation.read_back_stored_only = true;
    run.verify = !c.run.timing_only;
    kernels::Result<session::Outcome> outcome = session::run_problem(problem, plan, sim, run);
    if (!outcome) throw CliError(fmt::format("{}: {}", where, first_error(outcome.errors())));
    const report::VerifyResult* v = outcome->stats.verify ? &*outcome->stats.verify : nullptr;
    if (v && !v->ok)
      throw CliError(fmt::format("{}: verify failed: {} elements differ; first {}", where, v->mismatches,
                                 v->first_mismatch),
                     1);
    return std::move(outcome.value());
  };
  std::vector<LayerTotals> totals(layers);
  std::uint64_t cycles = 0, activations_in_lm = 0;
  std::string dram_reason;  // one program per batch: why an activation goes through DRAM
  double estimated = 0;     // one program per batch: the plans' estimates
  double energy = 0;
  bool has_energy = false;
  std::uint64_t correct = 0, agree = 0, reference_correct = 0;
  std::vector<std::uint8_t> predicted;  // --out: the simulated network's class per image
  for (std::uint64_t b = 0; b < batches; ++b) {
    const std::uint64_t first = b * batch, rows = std::min(batch, c.images - first);
    const std::uint8_t* pixels = images.values.data() + first * model.features;
    std::vector<std::uint8_t> act(pixels, pixels + rows * model.features);
    if (network) {
      const std::string where = fmt::format("images {}..{}", first, first + rows - 1);
      std::unique_ptr<kernels::Problem> problem = mlp::network_problem(model, rows, act, false);
      auto known = network_plans.find(rows);
      if (known == network_plans.end()) {
        kernels::Result<kernels::Plan> p = chain_file ? problem->plan_from_file(c.plan_file, machine)
                                                      : kernels::plan_problem(*problem, machine);
        if (!p) {
          const std::string message = first_error(p.errors());
          throw CliError(chain_file ? message : fmt::format("the plan for {} images: {}", rows, message));
        }
        known = network_plans.emplace(rows, std::move(p.value())).first;
      }
      // The logits checked against the host reference.
      const session::Outcome outcome = run_checked(*problem, known->second, "mlp", where);
      const report::Report& rep = outcome.report;
      cycles += rep.cycles;
      estimated += known->second.estimated_cycles;
      if (rep.energy_pj) energy += rep.energy_pj->total, has_energy = true;
      activations_in_lm = outcome.stats.extra.at("activations_in_lm");
      if (auto why = outcome.stats.info.find("dram_reason"); why != outcome.stats.info.end())
        dram_reason = why->second;
      for (const report::PhaseReport& ph : rep.phases) {
        const std::string name = ph.name.substr(0, ph.name.find('.'));
        const std::size_t l = std::stoul(name.substr(5));  // "layer3" or "layer3.convert"
        LayerTotals& t = totals[l];
        if (ph.name.find(".convert") != std::string::npos) {
          t.convert_cycles += ph.cycles;
          continue;
        }
        t.cycles += ph.cycles;
        t.macs += rows * model.layers[l].k * model.layers[l].n;
        t.dram_read += ph.work.dram_read_bytes;
        t.dram_written += ph.work.dram_write_bytes;
        t.down_sent.resize(ph.levels.size());
        for (std::size_t i = 0; i < ph.levels.size(); ++i)
          t.down_sent[i] += ph.levels[i].traffic.down_sent_bytes;
      }
      act = c.run.timing_only ? std::vector<std::uint8_t>(rows * classes)
                              : outcome.dram.at(outcome.outputs.front().tensor);
    } else {
      const mlp::NetworkPlan& plan = network_plan(rows);
      for (std::size_t l = 0; l < layers; ++l) {
        const mlp::MlpLayer& layer = model.layers[l];
        auto it = plan.find(layer.name);
        const mlp::LayerLayouts layouts = it == plan.end() ? mlp::LayerLayouts{} : it->second;
        const std::string where = fmt::format("{}, images {}..{}", layer.name, first, first + rows - 1);
        std::unique_ptr<kernels::Problem> problem = mlp::layer_problem(model, l, rows, act, layouts);
        auto fail = [&](const core::Errors& e) {
          throw CliError(fmt::format("{}: {}", where, first_error(e)));
        };
        kernels::Result<kernels::Plan> p = kernels::plan_problem(*problem, machine);
        if (!p) fail(p.errors());
        // Every layer's output checked against the host reference.
        const session::Outcome outcome =
            run_checked(*problem, p.value(), layer.ternary ? "tgemm" : "qgemm", where);
        const report::Report& rep = outcome.report;
        LayerTotals& t = totals[l];
        t.cycles += rep.cycles;
        t.macs += rows * layer.k * layer.n;
        t.dram_read += rep.work.dram_read_bytes;
        t.dram_written += rep.work.dram_write_bytes;
        t.down_sent.resize(rep.levels.size());
        for (std::size_t i = 0; i < rep.levels.size(); ++i)
          t.down_sent[i] += rep.levels[i].traffic.down_sent_bytes;
        if (rep.energy_pj) t.energy_pj += rep.energy_pj->total, t.has_energy = true;
        // Timing only: the next layer's input is only its size (its values are never read).
        act = c.run.timing_only ? std::vector<std::uint8_t>(rows * layer.n)
                                : outcome.dram.at(outcome.outputs.front().tensor);
      }
    }
    if (c.run.timing_only) continue;
    // The simulated logits against the host reference's, computed from the pixels alone.
    std::vector<std::int32_t> logits(act.size());
    for (std::size_t i = 0; i < act.size(); ++i) logits[i] = static_cast<std::int8_t>(act[i]);
    const std::vector<std::uint32_t> got = mlp::predictions(logits, classes);
    const std::vector<std::uint32_t> want =
        mlp::predictions(mlp::host_forward(model, pixels, rows).back(), classes);
    for (std::uint64_t i = 0; i < rows; ++i) {
      const std::uint8_t label = labels.values[first + i];
      correct += got[i] == label;
      reference_correct += want[i] == label;
      agree += got[i] == want[i];
      predicted.push_back(static_cast<std::uint8_t>(got[i]));
    }
  }
  if (!c.run.timing_only && agree != c.images)
    throw CliError(fmt::format("predictions differ from the host reference's on {} of {} images",
                               c.images - agree, c.images),
                   1);

  if (!network) {  // the layers ran one after another
    for (const LayerTotals& t : totals) cycles += t.cycles, energy += t.energy_pj;
    has_energy = !totals.empty() && totals.front().has_energy;
  }
  const double per_image = static_cast<double>(cycles) / static_cast<double>(c.images);
  const double per_batch = static_cast<double>(cycles) / static_cast<double>(batches);
  std::string out = fmt::format("mlp {} on {}: {} images in {} batch{} of {}\n", model.name, machine.name,
                                c.images, batches, batches == 1 ? "" : "es", batch);
  if (c.run.timing_only) {
    out += "  timing only: no values computed, so no accuracy and no check\n";
  } else {
    out += fmt::format(
        "  accuracy {:.2f}% ({} of {}); the float model: {:.2f}% (train.py, all 10,000 test images)\n",
        100.0 * static_cast<double>(correct) / static_cast<double>(c.images), correct, c.images,
        100.0 * model.float_accuracy);
    out += fmt::format("  {} bit-exact; predictions equal the host reference's on {} of {} images\n",
                       network ? "every batch's logits" : "every layer's output", agree, c.images);
  }
  out += fmt::format("  cycles {} ({:.1f} per image, {:.0f} per batch: {:.3e} s per batch at {:g} GHz)\n",
                     cycles, per_image, per_batch, per_batch / (machine.clock_ghz * 1e9), machine.clock_ghz);
  if (network)
    out += fmt::format(
        "  one program per batch: {} of {} activations in the LMs between layers{}{}\n", activations_in_lm,
        layers - 1, activations_in_lm ? ", converted on the tree" : "",
        activations_in_lm + 1 < layers && !dram_reason.empty() ? "; through DRAM: " + dram_reason : "");
  else
    out += "  every layer its own program per batch, its activations through DRAM\n";
  // Per layer: its own span (in one program, the layers' spans overlap a little) and, after it, its
  // output's conversion; energy per layer only when each layer is its own run.
  const bool layer_energy = has_energy && !network;
  out += fmt::format("  {:<6} {:<8} {:>9} {:>12} {:>10} {:>6} {:>10} {:>13} {:>14}{}\n", "layer", "kind",
                     "KxN", "cycles", "per image", "share", "convert", "DRAM read B", "DRAM written B",
                     layer_energy ? "    energy pJ" : "");
  for (std::size_t l = 0; l < layers; ++l) {
    const LayerTotals& t = totals[l];
    const mlp::MlpLayer& layer = model.layers[l];
    out += fmt::format("  {:<6} {:<8} {:>9} {:>12} {:>10.1f} {:>5.1f}% {:>10} {:>13} {:>14}{}\n", layer.name,
                       kind_of(layer), fmt::format("{}x{}", layer.k, layer.n), t.cycles,
                       static_cast<double>(t.cycles) / static_cast<double>(c.images),
                       cycles ? 100.0 * static_cast<double>(t.cycles) / static_cast<double>(cycles) : 0.0,
                       t.convert_cycles ? std::to_string(t.convert_cycles) : "-", t.dram_read, t.dram_written,
                       layer_energy ? fmt::format(" {:>13.4g}", t.energy_pj) : "");
  }
  std::string traffic = "  down traffic sent:";
  for (std::size_t i = 0; i < machine.levels.size(); ++i) {
    std::uint64_t sum = 0;
    for (const LayerTotals& t : totals) sum += i < t.down_sent.size() ? t.down_sent[i] : 0;
    traffic +=
        fmt::format(" {} {} B{}", machine.levels[i].name, sum, i + 1 < machine.levels.size() ? "," : "");
  }
  out += traffic + "\n";
  if (has_energy)
    out += fmt::format("  energy {:.4g} pJ ({:.4g} pJ per image)\n", energy,
                       energy / static_cast<double>(c.images));
  if (!c.run.quiet) std::cout << out;
  // A count a timing-only run does not compute is null in the report.
  auto computed = [&](std::uint64_t count) { return c.run.timing_only ? "null" : std::to_string(count); };
  if (!c.run.report_path.empty()) {
    std::string json = fmt::format(
        "{{\n  \"model\": \"{}\", \"machine\": \"{}\", \"functional\": {}, \"images\": {}, \"batch\": {}, "
        "\"batches\": {},\n"
        "  \"correct\": {}, \"accuracy\": {}, \"float_accuracy\": {:.6f}, \"reference_agrees\": {},\n"
        "  \"cycles\": {}, \"cycles_per_image\": {:.3f}, \"cycles_per_batch\": {:.3f}, \"energy_pj\": "
        "{:.6g},\n"
        "  \"activations\": \"{}\", \"activations_in_lm\": {}, \"estimated_cycles\": {}, \"dram_reason\": "
        "{},\n"
        "  \"layers\": [",
        model.name, machine.name, !c.run.timing_only, c.images, batch, batches, computed(correct),
        c.run.timing_only
            ? "null"
            : fmt::format("{:.6f}", static_cast<double>(correct) / static_cast<double>(c.images)),
        model.float_accuracy, computed(agree), cycles, per_image, per_batch, energy, network ? "lm" : "dram",
        network ? activations_in_lm : 0, network ? fmt::format("{:.0f}", estimated) : "null",
        dram_reason.empty() ? "null" : nlohmann::json(dram_reason).dump());
    for (std::size_t l = 0; l < layers; ++l) {
      const LayerTotals& t = totals[l];
      json += fmt::format(
          "{}\n    {{\"name\": \"{}\", \"kind\": \"{}\", \"k\": {}, \"n\": {}, \"cycles\": {}, \"macs\": {}, "
          "\"convert_cycles\": {}, \"dram_read_bytes\": {}, \"dram_write_bytes\": {}, \"energy_pj\": {}}}",
          l ? "," : "", model.layers[l].name, kind_of(model.layers[l]), model.layers[l].k, model.layers[l].n,
          t.cycles, t.macs, t.convert_cycles, t.dram_read, t.dram_written,
          network ? "null" : fmt::format("{:.6g}", t.energy_pj));
    }
    json += "\n  ]\n}\n";
    files.write(c.run.report_path, json, "--report");
  }
  if (!c.out_path.empty()) {
    try {
      io::write_npy(files.stage(c.out_path, "--out"), io::make_npy({c.images}, predicted));
    } catch (const std::runtime_error& e) {
      throw CliError(e.what());
    }
  }
  files.commit();
}

}  // namespace

void add_mlp_command(CLI::App& run) {
  auto* cmd = run.add_subcommand(
      "mlp", "A quantized MLP on Fashion-MNIST's test images, every batch simulated as one program");
  auto c = std::make_shared<MlpCommand>();
  cmd->add_option("--model", c->model_dir, "Model folder (model.yaml and .npy files, tools/mlp/train.py)")
      ->required();
  cmd->add_option("--machine", c->machine, "Machine file (YAML)")->required();
  cmd->add_option("--images", c->images, "Run the first N test images")->capture_default_str();
  cmd->add_option("--batch", c->batch, "Images per simulated batch (the GEMMs' M)")->capture_default_str();
  cmd->add_option("--data", c->data_dir,
                  "Folder with t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte (plain or .gz)")
      ->capture_default_str();
  cmd->add_option(
      "--plan-file", c->plan_file,
      "A chain plan (treesim tune chain), or layouts per layer (YAML: layers: {fc1: {a: .., b: .., c: ..}}); "
      "default: each kernel's planner");
  cmd->add_flag(
      "--chain-plan", c->chain_plan,
      "With --via-dram: lay each layer's run out as the chain planner's best path (once per batch size)");
  cmd->add_flag("--via-dram", c->via_dram,
                "Every layer its own program, its activations through DRAM (the default: one program per "
                "batch, activations in the LMs)");
  cmd->add_option("--out", c->out_path, "Write the predicted classes as .npy (uint8, one per image)");
  add_run_options(*cmd, c->run);
  cmd->callback([c] { run_mlp(*c); });
}

}  // namespace treesim::tools
