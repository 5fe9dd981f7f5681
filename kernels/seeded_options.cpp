#include "kernels/seeded_options.h"

#include <algorithm>
#include <limits>

namespace treesim::kernels {

OptionSpec size_option(const char* name, const char* help, std::optional<std::uint64_t> fallback) {
  return {
      name, OptionKind::kUnsigned, help, fallback ? std::optional<OptionValue>(*fallback) : std::nullopt, {},
      1,    std::nullopt};
}

core::Errors gemm_sizes_given(const Options& o, const char* files) {
  std::vector<std::string> missing;
  for (const char* name : {"m", "n", "k"})
    if (!o.unsigned_int(name)) missing.push_back(option_flag(name));
  if (missing.empty()) return {};
  std::string names = missing.front();
  for (std::size_t i = 1; i < missing.size(); ++i)
    names += (i + 1 == missing.size() ? " and " : ", ") + missing[i];
  return {core::Error{"", fmt::format("{} {} missing: give --m, --n and --k (or {})", names,
                                      missing.size() == 1 ? "is" : "are", files)}};
}

OptionSpec dtype_option(const char* name, const char* help) {
  return {name, OptionKind::kChoice, help, OptionValue{std::string("s8")}, {"u8", "s8", "uint8", "int8"}, {},
          {}};
}

OptionSpec zero_option(const char* name, const char* help) {
  return {name,
          OptionKind::kSigned,
          help,
          std::nullopt,
          {},
          std::numeric_limits<std::int32_t>::min(),
          std::numeric_limits<std::int32_t>::max()};
}

OptionSpec act_option(const char* help) {
  return {"act", OptionKind::kChoice, help, OptionValue{std::string("none")}, {"none", "relu", "relu6"}, {},
          {}};
}

OptionSpec rounding_option(const char* help) {
  return {"rounding",
          OptionKind::kChoice,
          help,
          OptionValue{std::string("double")},
          {"double", "single", "double_upward", "float"},
          {},
          {}};
}

core::DType option_dtype(const std::string& text) {
  // The short spellings of oneDNN (u8, s8) and the canonical names.
  return text == "u8" || text == "uint8" ? core::DType::kUInt8 : core::DType::kInt8;
}

std::int32_t option_zero(const Options& o, const char* name, core::DType type) {
  const auto z = o.signed_int(name);
  return z ? static_cast<std::int32_t>(*z) : type == core::DType::kUInt8 ? 128 : 0;
}

numeric::OutputStage seeded_output_stage(const Options& o) {
  numeric::OutputStage out;
  out.multipliers.clear();
  out.out_dtype = option_dtype(o.text("dtype-out"));
  out.out_zero_point = option_zero(o, "out-zero", out.out_dtype);
  out.act_min = out.out_dtype == core::DType::kUInt8 ? 0 : -128;
  out.act_max = out.out_dtype == core::DType::kUInt8 ? 255 : 127;
  const std::string act = o.text("act");
  if (act == "relu" || act == "relu6") out.act_min = std::max(out.act_min, out.out_zero_point);
  if (act == "relu6") out.act_max = std::min(out.act_max, out.out_zero_point + 120);
  if (o.has("rounding")) out.rounding = *numeric::parse_rounding(o.text("rounding"));
  return out;
}

}  // namespace treesim::kernels
