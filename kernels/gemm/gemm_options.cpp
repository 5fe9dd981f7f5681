#include "kernels/gemm/gemm_options.h"

#include <cctype>
#include <cstring>

namespace treesim::kernels {
OptionSpec plain_option(const char* name, OptionKind kind, const char* help) {
  return OptionSpec{name, kind, help, std::nullopt, {}, {}, {}};
}

std::vector<OptionSpec> gemm_size_options(const std::string& w) {
  return {size_option("m", "Rows of A and C"), size_option("n", ("Columns of " + w + " and C").c_str()),
          size_option("k", ("Columns of A, rows of " + w).c_str())};
}

OptionSpec seed_option() {
  return {"seed", OptionKind::kUnsigned, "Seed of the random operands", OptionValue{std::uint64_t{1}}, {}, {},
          {}};
}

std::vector<OptionSpec> gemm_layout_options(const std::string& w) {
  std::string lower = w;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return {
      plain_option("layout-a", OptionKind::kText, "Layout of the whole A (M×K): which levels split M and K"),
      OptionSpec{"layout-" + lower,
                 OptionKind::kText,
                 "Layout of the whole " + w + " (K×N): which levels split K and N",
                 std::nullopt,
                 {},
                 {},
                 {}},
      plain_option("layout-c", OptionKind::kText, "Layout of the whole C (M×N): which levels split M and N")};
}

std::vector<numeric::QuantizedMultiplier> draw_channel_multipliers(core::Mt19937_64& gen, std::uint64_t n,
                                                                   double base, numeric::Rounding rounding) {
  std::vector<numeric::QuantizedMultiplier> out;
  for (std::uint64_t c = 0; c < n; ++c)
    out.push_back(
        numeric::quantize_multiplier(base * (0.5 + static_cast<double>(gen() % 1000) / 1000.0), rounding));
  return out;
}

std::vector<std::uint8_t> draw_bias(core::Mt19937_64& gen, std::uint64_t n) {
  std::vector<std::uint8_t> bytes(n * 4);
  for (std::uint64_t c = 0; c < n; ++c) {
    const std::int32_t v = static_cast<std::int32_t>(gen() % 65536) - 32768;
    std::memcpy(bytes.data() + c * 4, &v, 4);
  }
  return bytes;
}

bool operands_from_files(const Options& o, const std::string& w) {
  return !o.text("a").empty() || !o.text(w).empty() || !o.text("quant").empty() || !o.text("bias").empty();
}

Kernel gemm_kernel(const char* name, const char* summary, std::vector<OptionSpec> options, const char* k,
                   Result<std::unique_ptr<Problem>> (*make)(const Options&, const machine::MachineConfig&),
                   const char* compare) {
  return {name,
          summary,
          std::move(options),
          "Write C as .npy",
          {{"m", "16"}, {"n", "24"}, {"k", k}, {"per-channel", "true"}},
          make,
          compare,
          /*tunable=*/true,
          /*plan_files=*/true};
}

}  // namespace treesim::kernels
