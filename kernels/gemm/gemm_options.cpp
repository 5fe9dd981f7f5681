#include "kernels/gemm/gemm_options.h"

#include <cctype>
#include <cstring>

#include "kernels/float_operands.h"
#include "kernels/gemm/gemm_front.h"

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

std::vector<OptionSpec> gemm_options(WeightPath path) {
  const auto plain = plain_option;
  const bool int8 = path == WeightPath::kInt8;
  const std::string w = int8 ? "B" : "W";
  std::vector<OptionSpec> options = gemm_size_options(w);
  if (!int8)
    options.push_back(
        {"weight-encoding",
         OptionKind::kChoice,
         "How W travels and is decoded: dpt (5 per byte), bct (4 per byte), base3 (5 per byte), int8, or all "
         "(the four compared)",
         OptionValue{std::string("dpt")},
         {"dpt", "bct", "base3", "int8", "all"},
         {},
         {}});
  options.push_back(
      dtype_option("dtype-a", "A's type with --seed, or a float --a's quantized type: u8 or s8"));
  if (int8) {
    options.push_back(
        dtype_option("dtype-b", "B's type with --seed, or a float --b's quantized type: u8 or s8"));
    options.push_back({"dtype-out",
                       OptionKind::kChoice,
                       "C's type with --seed: u8, s8, or s32 (the int32 accumulators: no bias, no requant)",
                       OptionValue{std::string("s8")},
                       {"u8", "s8", "s32", "uint8", "int8", "int32"},
                       {},
                       {}});
  } else {
    options.push_back(dtype_option("dtype-out", "C's type with --seed: u8 or s8"));
  }
  options.push_back(zero_option("a-zero", "A's zero point with --seed (default 128 for u8, 0 for s8)"));
  if (int8)
    options.push_back(zero_option("b-zero", "B's zero point with --seed (default 128 for u8, 0 for s8)"));
  append(
      options,
      {zero_option("out-zero", "C's zero point with --seed (default 128 for u8, 0 for s8)"),
       plain("per-channel", OptionKind::kFlag, "With --seed: one requant multiplier per output column"),
       rounding_option(
           "With --seed: the requant arithmetic: double (TFLite reference), single, double_upward or float "
           "(ONNX Runtime's float32 scale); a --quant file gives its own"),
       plain("no-bias", OptionKind::kFlag, "With --seed: no bias"),
       act_option("With --seed: none, relu or relu6 (output scale 1/20)"), seed_option(),
       plain("a", OptionKind::kPath,
             "A as .npy (int8/uint8, M×K; float32/float16/bfloat16: quantized on load)"),
       int8 ? plain("b", OptionKind::kPath,
                    "B as .npy (int8/uint8, K×N; float32/float16/bfloat16: quantized on load)")
            : plain("w", OptionKind::kPath,
                    "W as .npy (int8 −1/0/1, K×N; float32/float16/bfloat16: ternarized on load) or .dpt "
                    "(treesim dpt pack)"),
       plain("bias", OptionKind::kPath, "bias as .npy (int32, N)"),
       plain("quant", OptionKind::kPath,
             int8 ? "Quantization file (YAML) for --a/--b"
                  : "Quantization file (YAML) for --a/--w; b_scale is W's scale")});
  append(options, gemm_layout_options(w));
  append(options, {out_dtype_option()});
  return options;
}

Result<QgemmProblem> seeded_gemm_problem(const Options& o, WeightPath path, double (*scale)(std::uint64_t k),
                                         const machine::MachineConfig& machine) {
  const bool int8 = path == WeightPath::kInt8;
  const auto m = o.unsigned_int("m"), n = o.unsigned_int("n"), k = o.unsigned_int("k");
  if (core::Errors e = gemm_sizes_given(o, int8 ? "--a/--b/--quant files" : "--a/--w/--quant files");
      !e.empty())
    return e;
  if (auto d = output_dequantize(o, nullptr); !d) return d.errors();
  const bool int32_out = int8 && (o.text("dtype-out") == "s32" || o.text("dtype-out") == "int32");
  if (int32_out) {
    const std::pair<const char*, bool> requant_options[] = {{"--per-channel", o.flag("per-channel")},
                                                            {"--out-zero", o.has("out-zero")},
                                                            {"--act", o.text("act") != "none"},
                                                            {"--rounding", o.text("rounding") != "double"}};
    for (auto [name, given] : requant_options)
      if (given) return core::Error{name, "has no meaning with --dtype-out s32 (no requant)"};
  }
  const bool per_channel = o.flag("per-channel"), bias = !o.flag("no-bias") && !int32_out;
  // Refuse what the DRAM cannot hold before allocating any of it.
  core::Errors size = gemm_size_errors(*m, *n, *k, bias, per_channel, machine, false);
  if (!size.empty()) return size;
  QgemmProblem p;
  p.m = *m, p.n = *n, p.k = *k;
  p.a_dtype = option_dtype(o.text("dtype-a"));
  p.a_zero = option_zero(o, "a-zero", p.a_dtype);
  if (int8) {
    p.b_dtype = option_dtype(o.text("dtype-b"));
    p.b_zero = option_zero(o, "b-zero", p.b_dtype);
  }
  p.out = seeded_output_stage(o);
  p.out.multipliers.assign(per_channel ? p.n : 1, numeric::quantize_multiplier(scale(p.k), p.out.rounding));
  p.has_bias = bias;
  p.int32_out = int32_out;
  return p;
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
