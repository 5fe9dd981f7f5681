// `treesim run chain`: the chain of GEMM layers under the kernel contract — planned as a whole by the
// chain planner (activations in the LMs, converted on the tree between layers), or as a chain plan
// file says (`treesim tune chain --out`), or with --via-dram layer by layer by qgemm's default
// planner through DRAM; built as one program, verified against the host reference applied layer
// after layer.
#include <fmt/format.h>

#include <cstring>

#include "kernels/chain/chain.h"
#include "kernels/chain/network.h"
#include "kernels/qgemm/qgemm_kernel.h"
#include "sim/numeric/qgemm_reference.h"

namespace treesim::kernels {
namespace {

class ChainInstance : public Problem {
 public:
  ChainInstance(GemmChainSpec spec, std::uint64_t seed, bool via_dram)
      : spec_(std::move(spec)), seed_(seed), via_dram_(via_dram) {}

  core::Errors check(const machine::MachineConfig& machine) const override {
    return chain_spec_errors(spec_, machine, "");
  }

  Result<Plan> plan(const machine::MachineConfig& machine) const override {
    return plan_network(chain_problems(spec_), machine, via_dram_, spec_.candidates_per_layer);
  }

  Result<Plan> plan_from_file(const std::string& path, const machine::MachineConfig& machine) const override {
    if (via_dram_)
      return core::Error{"--via-dram",
                         "give it or --plan-file, not both (the file says where activations go)"};
    return network_plan_from_file(path, chain_problems(spec_), machine);
  }

  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& machine) const override {
    return network_program(chain_problems(spec_), plan, machine);
  }

  std::vector<Phase> phases(const Plan& plan, const program::Program&,
                            const machine::MachineConfig& machine) const override {
    return network_phases(chain_problems(spec_), plan, machine);
  }

  std::vector<std::string> input_tensors() const override {
    std::vector<std::string> names{"X0"};
    for (std::size_t i = 0; i < spec_.layers(); ++i) {
      names.push_back(fmt::format("W{}", i));
      names.push_back(fmt::format("bias{}", i));
    }
    return names;
  }

  DramImage inputs() const override {
    DramImage dram;
    for (std::size_t i = 0; i < spec_.layers(); ++i) {
      QgemmOperands ops = layer_operands(i);
      if (i == 0) dram["X0"] = std::move(ops.a);
      dram[fmt::format("W{}", i)] = std::move(ops.b);
      dram[fmt::format("bias{}", i)] = std::move(ops.bias);
    }
    return dram;
  }

  Result<DramImage> reference() const override {
    std::vector<std::int32_t> x;
    for (std::size_t i = 0; i < spec_.layers(); ++i) {
      const QgemmProblem p = chain_layer_problem(spec_, i);
      const QgemmOperands ops = layer_operands(i);
      if (i == 0) x = codes(ops.a);
      numeric::QGemmParams params;
      params.M = p.m, params.N = p.n, params.K = p.k;
      params.out = p.out;
      std::vector<std::int32_t> bias(p.n);
      std::memcpy(bias.data(), ops.bias.data(), ops.bias.size());
      try {
        x = numeric::reference_qgemm(params, x, codes(ops.b), bias);
      } catch (const numeric::QuantError& e) {
        return core::Error{fmt::format("layer {}", i),
                           std::string("the host reference rejects it: ") + e.what()};
      }
    }
    std::vector<std::uint8_t> bytes(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) bytes[i] = static_cast<std::uint8_t>(x[i]);
    return DramImage{{fmt::format("X{}", spec_.layers()), std::move(bytes)}};
  }

  void add_report_fields(const Plan& plan, const machine::MachineConfig&,
                         report::RunStats& stats) const override {
    add_network_report_fields(plan, stats);
    stats.extra["layers"] = spec_.layers();
    stats.extra["m"] = spec_.m;
  }

  std::optional<std::uint64_t> useful_macs() const override {
    std::uint64_t macs = 0;
    for (std::size_t i = 0; i < spec_.layers(); ++i) macs += spec_.m * spec_.widths[i] * spec_.widths[i + 1];
    return macs;
  }

  std::vector<OutputArray> outputs() const override {
    return {{fmt::format("X{}", spec_.layers()), core::DType::kInt8, {spec_.m, spec_.widths.back()}, {}}};
  }

 private:
  // The layers' plans with the activations placed (or all through DRAM with --via-dram); the
  // estimate is the layers' and the conversions' in turn.
  // Layer i's A (used for layer 0 only), W and bias, from seed + i.
  QgemmOperands layer_operands(std::size_t i) const {
    return draw_operands(chain_layer_problem(spec_, i), QgemmSeed{seed_ + i, false});
  }

  static std::vector<std::int32_t> codes(const std::vector<std::uint8_t>& bytes) {
    std::vector<std::int32_t> out(bytes.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) out[i] = static_cast<std::int8_t>(bytes[i]);
    return out;
  }

  GemmChainSpec spec_;
  std::uint64_t seed_;
  bool via_dram_;
};

std::vector<OptionSpec> chain_options() {
  return {
      {"spec",
       OptionKind::kPath,
       "Chain spec file (YAML: m, widths); or --m and --widths",
       std::nullopt,
       {},
       {},
       {}},
      {"m", OptionKind::kUnsigned, "Rows of every activation (the batch)", std::nullopt, {}, 1, std::nullopt},
      {"widths",
       OptionKind::kText,
       "Layer widths w0,w1,…,wL (L layers: wi×wi+1 weights)",
       std::nullopt,
       {},
       {},
       {}},
      {"seed",
       OptionKind::kUnsigned,
       "Seed of the random input and weights",
       OptionValue{std::uint64_t{1}},
       {},
       {},
       {}},
      {"via-dram",
       OptionKind::kFlag,
       "Every activation through DRAM, each layer on its own default plan (for comparison)",
       std::nullopt,
       {},
       {},
       {}},
  };
}

Result<std::unique_ptr<Problem>> make_chain(const Options& o, const machine::MachineConfig& machine) {
  GemmChainSpec spec;
  if (!o.text("spec").empty()) {
    if (o.has("m") || o.has("widths"))
      return core::Error{"--spec", "give a spec file or --m and --widths, not both"};
    Result<GemmChainSpec> read = read_chain_spec(o.text("spec"));
    if (!read) return read.errors();
    spec = read.value();
  } else {
    if (!o.has("m") || !o.has("widths")) return core::Error{"", "give --m and --widths (or --spec FILE)"};
    spec.m = *o.unsigned_int("m");
    Result<std::vector<std::uint64_t>> widths = parse_widths(o.text("widths"), "--widths");
    if (!widths) return widths.errors();
    spec.widths = widths.value();
  }
  // Every activation, weight and bias in DRAM, refused before anything is allocated (the layers'
  // own checks run with the problem's).
  const char* option =
      o.text("spec").empty() ? (o.has("m") && spec.m >= spec.widths[0] ? "--m" : "--widths") : "--spec";
  if (core::Errors e = chain_spec_errors(spec, machine, option); !e.empty() && e.front().where == option)
    return e.front();
  return std::unique_ptr<Problem>(
      new ChainInstance(std::move(spec), o.unsigned_int("seed").value_or(1), o.flag("via-dram")));
}

}  // namespace

Kernel chain_kernel() {
  Kernel k{"chain",
           "A chain of int8 GEMM layers (an MLP with ReLU), each output the next input, verified bit-exactly",
           chain_options(),
           "Write the last activation as .npy",
           {{"m", "16"}, {"widths", "24,40,32"}},
           &make_chain,
           ""};
  k.plan_files = true;
  return k;
}

}  // namespace treesim::kernels
