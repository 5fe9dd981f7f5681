#include "kernels/chain/gemm_network.h"

#include <cstring>

#include <fmt/format.h>

#include "kernels/chain/network.h"
#include "kernels/operand_bytes.h"
#include "kernels/tgemm/tgemm.h"
#include "sim/numeric/qgemm_reference.h"

namespace treesim::kernels {
namespace {

class GemmNetwork : public Problem {
 public:
  GemmNetwork(std::vector<GemmLayer> layers, std::vector<std::uint8_t> input, bool via_dram)
      : layers_(std::move(layers)), input_(std::move(input)), via_dram_(via_dram) {
    for (const GemmLayer& l : layers_) net_.push_back(l.problem);
  }

  core::Errors check(const machine::MachineConfig&) const override {
    core::Errors errors;
    for (std::size_t i = 0; i < net_.size(); ++i) {
      try {
        check_problem(net_[i]);
      } catch (const QgemmError& e) {
        errors.push_back({fmt::format("layer {}", i), e.what()});
      }
    }
    return errors;
  }
  Result<Plan> plan(const machine::MachineConfig& machine) const override {
    return plan_network(net_, machine, via_dram_, 3);  // three candidates per layer, as run mlp
  }
  // A chain plan file (`treesim tune chain --out`) for these layers.
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
    for (std::size_t i = 0; i < layers_.size(); ++i) {
      if (net_[i].ternary) {
        const std::vector<std::int8_t> w(layers_[i].b.begin(), layers_[i].b.end());
        dram[fmt::format("W{}", i)] = pack_weights(w, net_[i].k, net_[i].n, weight_encoding(net_[i]));
      } else {
        dram[fmt::format("W{}", i)] = layers_[i].b;
      }
      if (net_[i].has_bias) dram[fmt::format("bias{}", i)] = layers_[i].bias;
      if (net_[i].per_channel()) {
        std::vector<std::int32_t> mult, shift;
        for (const auto& q : net_[i].out.multipliers) mult.push_back(q.multiplier), shift.push_back(q.shift);
        dram[fmt::format("multiplier{}", i)] = int32_bytes(mult);
        dram[fmt::format("shift{}", i)] = int32_bytes(shift);
      }
    }
    return dram;
  }
  Result<DramImage> reference() const override {
    std::vector<std::int32_t> act = codes(input_, net_[0].a_dtype);
    for (std::size_t i = 0; i < net_.size(); ++i) {
      const QgemmProblem& p = net_[i];
      numeric::QGemmParams params;
      params.M = p.m, params.N = p.n, params.K = p.k;
      params.a_dtype = p.a_dtype, params.b_dtype = p.b_dtype;
      params.a_zero_point = p.a_zero, params.b_zero_point = p.b_zero;
      params.out = p.out;
      std::vector<std::int32_t> bias(layers_[i].bias.size() / 4);
      if (!bias.empty()) std::memcpy(bias.data(), layers_[i].bias.data(), layers_[i].bias.size());
      try {
        act = numeric::reference_qgemm(params, act, codes(layers_[i].b, p.b_dtype), bias);
      } catch (const numeric::QuantError& e) {
        return core::Error{fmt::format("layer {}", i),
                           std::string("the host reference rejects it: ") + e.what()};
      }
    }
    std::vector<std::uint8_t> bytes(act.size());
    for (std::size_t i = 0; i < act.size(); ++i) bytes[i] = static_cast<std::uint8_t>(act[i]);
    return DramImage{{output_name(), std::move(bytes)}};
  }
  void add_report_fields(const Plan& plan, const machine::MachineConfig&,
                         report::RunStats& stats) const override {
    add_network_report_fields(plan, stats);
    stats.extra["layers"] = net_.size();
    stats.extra["m"] = net_.front().m;
  }
  std::optional<std::uint64_t> useful_macs() const override {
    std::uint64_t macs = 0;
    for (const QgemmProblem& layer : net_) macs += layer.groups * layer.m * layer.n * layer.k;
    return macs;
  }
  std::vector<OutputArray> outputs() const override {
    return {{output_name(), net_.back().out_dtype(), {net_.back().m, net_.back().n}, {}}};
  }

 private:
  std::string output_name() const { return fmt::format("X{}", net_.size()); }

  std::vector<GemmLayer> layers_;
  std::vector<std::uint8_t> input_;
  bool via_dram_;
  std::vector<QgemmProblem> net_;
};

}  // namespace

Result<std::unique_ptr<Problem>> gemm_network_problem(std::vector<GemmLayer> layers,
                                                      std::vector<std::uint8_t> input, bool via_dram) {
  if (layers.empty()) return core::Error{"", "a network needs at least one layer"};
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const QgemmProblem& p = layers[i].problem;
    const std::string where = fmt::format("layer {}", i);
    if (p.int32_out) return core::Error{where, "an int32-output layer does not chain"};
    if (layers[i].b.size() != p.k * p.n) return core::Error{where, "B must hold K×N codes"};
    if (p.has_bias && layers[i].bias.size() != p.n * 4)
      return core::Error{where, "the bias must hold N int32"};
    if (i == 0) {
      if (input.size() != p.m * p.k) return core::Error{where, "the input must hold M×K codes"};
      continue;
    }
    const QgemmProblem& q = layers[i - 1].problem;
    if (p.m != q.m || p.k != q.n || p.a_dtype != q.out_dtype() || p.a_zero != q.out.out_zero_point)
      return core::Error{where, fmt::format("its input ({}×{} {}, zero point {}) is not layer {}'s output "
                                            "({}×{} {}, zero point {})",
                                            p.m, p.k, core::dtype_name(p.a_dtype), p.a_zero, i - 1, q.m, q.n,
                                            core::dtype_name(q.out_dtype()), q.out.out_zero_point)};
  }
  return std::unique_ptr<Problem>(new GemmNetwork(std::move(layers), std::move(input), via_dram));
}

}  // namespace treesim::kernels
