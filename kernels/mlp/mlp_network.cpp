#include "kernels/mlp/mlp_network.h"

#include <fmt/format.h>

#include "kernels/chain/network.h"
#include "kernels/mlp/mlp_layer.h"
#include "kernels/tgemm/tgemm.h"

namespace treesim::kernels::mlp {
namespace {

class MlpNetwork : public Problem {
 public:
  MlpNetwork(const MlpModel& model, std::uint64_t rows, std::vector<std::uint8_t> input, bool via_dram)
      : model_(model),
        rows_(rows),
        input_(std::move(input)),
        via_dram_(via_dram),
        net_(network_problems(model, rows)) {}

  core::Errors check(const machine::MachineConfig&) const override {
    core::Errors errors;
    for (std::size_t i = 0; i < net_.size(); ++i) {
      try {
        check_problem(net_[i]);
      } catch (const QgemmError& e) {
        errors.push_back({model_.layers[i].name, e.what()});
      }
    }
    return errors;
  }
  Result<Plan> plan(const machine::MachineConfig& machine) const override {
    // Three candidates per layer: planning stays well under the run on the board (tune chain keeps six).
    return plan_network(net_, machine, via_dram_, 3);
  }
  Result<Plan> plan_from_file(const std::string& path, const machine::MachineConfig& machine) const override {
    return network_plan_from_file(path, net_, machine);
  }
  Result<program::Program> program(const Plan& plan, const machine::MachineConfig& machine) const override {
    return network_program(net_, plan, machine);
  }
  std::vector<Phase> phases(const Plan& plan, const program::Program&,
                            const machine::MachineConfig& machine) const override {
    return network_phases(net_, plan, machine);
  }

  DramImage inputs() const override {
    DramImage dram{{"X0", input_}};
    for (std::size_t i = 0; i < net_.size(); ++i) {
      const MlpLayer& layer = model_.layers[i];
      std::vector<std::uint8_t> w;
      if (layer.ternary) {
        w = pack_weights(layer.weights, layer.k, layer.n, weight_encoding(net_[i]));
      } else {
        w.assign(layer.weights.size(), 0);
        std::copy(layer.weights.begin(), layer.weights.end(), w.begin());
      }
      dram[fmt::format("W{}", i)] = std::move(w);
      dram[fmt::format("bias{}", i)] = int32_bytes(layer.bias);
      if (net_[i].per_channel()) {
        std::vector<std::int32_t> mult, shift;
        for (const auto& q : net_[i].out.multipliers) mult.push_back(q.multiplier), shift.push_back(q.shift);
        dram[fmt::format("multiplier{}", i)] = int32_bytes(mult);
        dram[fmt::format("shift{}", i)] = int32_bytes(shift);
      }
    }
    return dram;
  }

  // The network on the host (host_forward: the reference GEMM layer after layer).
  Result<DramImage> reference() const override {
    const std::vector<std::int32_t> logits = host_forward(model_, input_.data(), rows_).back();
    std::vector<std::uint8_t> bytes(logits.size());
    for (std::size_t i = 0; i < logits.size(); ++i) bytes[i] = static_cast<std::uint8_t>(logits[i]);
    return DramImage{{output_name(), std::move(bytes)}};
  }

  void add_report_fields(const Plan& plan, const machine::MachineConfig&,
                         report::RunStats& stats) const override {
    add_network_report_fields(plan, stats);
    stats.extra["layers"] = net_.size();
    stats.extra["m"] = rows_;
  }

  std::vector<OutputArray> outputs() const override {
    return {{output_name(), core::DType::kInt8, {rows_, model_.layers.back().n}, {}}};
  }

 private:
  std::string output_name() const { return fmt::format("X{}", net_.size()); }

  const MlpModel& model_;
  std::uint64_t rows_;
  std::vector<std::uint8_t> input_;
  bool via_dram_;
  std::vector<QgemmProblem> net_;
};

}  // namespace

std::vector<QgemmProblem> network_problems(const MlpModel& model, std::uint64_t rows) {
  std::vector<QgemmProblem> out;
  for (std::size_t l = 0; l < model.layers.size(); ++l) {
    QgemmProblem p = layer_gemm_problem(model, l, rows);
    if (model.layers[l].ternary) set_weight_encoding(p, WeightEncoding::kDpt);
    out.push_back(std::move(p));
  }
  return out;
}

std::unique_ptr<Problem> network_problem(const MlpModel& model, std::uint64_t rows,
                                         std::vector<std::uint8_t> input, bool via_dram) {
  return std::make_unique<MlpNetwork>(model, rows, std::move(input), via_dram);
}

}  // namespace treesim::kernels::mlp
