#include "kernels/gemm/gemm_instance.h"

#include <cctype>
#include <cstring>

#include "kernels/operand_bytes.h"

namespace treesim::kernels {

std::vector<std::string> GemmInstance::input_tensors() const {
  std::vector<std::string> names{"A", front_.b_name()};
  if (p_.has_bias) names.push_back("bias");
  if (p_.per_channel()) names.insert(names.end(), {"multiplier", "shift"});
  return names;
}

std::vector<OutputArray> GemmInstance::outputs() const {
  return {{"C", p_.out_dtype(), {p_.m, p_.n}, dequantize_}};
}

void GemmInstance::add_vectors(DramImage& dram, const std::vector<std::uint8_t>& bias,
                               const numeric::OutputStage& out) const {
  if (p_.has_bias) dram["bias"] = bias;
  if (!p_.per_channel()) return;
  std::vector<std::int32_t> mult, shift;
  for (const auto& q : out.multipliers) {
    mult.push_back(q.multiplier);
    shift.push_back(q.shift);
  }
  dram["multiplier"] = int32_bytes(mult);
  dram["shift"] = int32_bytes(shift);
}

Result<DramImage> GemmInstance::reference_c(const numeric::QGemmParams& params,
                                            const std::vector<std::int32_t>& a,
                                            const std::vector<std::int32_t>& b,
                                            const std::vector<std::uint8_t>& bias_bytes) const {
  std::vector<std::int32_t> bias(bias_bytes.size() / 4);
  if (!bias.empty()) std::memcpy(bias.data(), bias_bytes.data(), bias_bytes.size());
  std::vector<std::int32_t> c;
  try {
    c = p_.int32_out ? numeric::reference_qgemm_acc(params, a, b)
                     : numeric::reference_qgemm(params, a, b, bias);
  } catch (const numeric::QuantError& e) {
    return core::Error{"", std::string("the host reference rejects this problem: ") + e.what()};
  }
  if (p_.int32_out) return DramImage{{"C", int32_bytes(c)}};
  std::vector<std::uint8_t> bytes(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) bytes[i] = static_cast<std::uint8_t>(c[i]);
  return DramImage{{"C", std::move(bytes)}};
}

void GemmInstance::add_plan_fields(const QgemmPlan& p, const machine::MachineConfig& machine,
                                   report::RunStats& stats) const {
  std::string b_key = "layout_" + front_.b_name();
  b_key.back() = static_cast<char>(std::tolower(static_cast<unsigned char>(b_key.back())));
  stats.info["plan"] = describe(p, machine);
  stats.info["layout_a"] = whole_layout_a(p_, p, machine);
  stats.info[b_key] = whole_layout_b(p_, p, machine);
  stats.info["layout_c"] = whole_layout_c(p_, p, machine);
  for (auto [key, value] : {std::pair{"m", p_.m},
                            {"n", p_.n},
                            {"k", p_.k},
                            {"tile_m", p.tm},
                            {"tile_n", p.tn},
                            {"tile_k", p.kt},
                            {"k_steps", p.steps},
                            {"passes", p.m_passes * p.n_passes}})
    stats.extra[key] = value;
}

}  // namespace treesim::kernels
