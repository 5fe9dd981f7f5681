// `treesim quant`: the bit-exact requantization arithmetic from the command line: real multiplier →
// (Q, shift), MultiplyByQuantizedMultiplier, and the host reference quantized GEMM on .npy files.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <limits>

#include "sim/core/decimal.h"
#include "sim/core/echo.h"
#include "sim/io/npy.h"
#include "sim/numeric/fixed_point.h"
#include "sim/numeric/qgemm_reference.h"
#include "sim/numeric/quant_file.h"
#include "tools/cli.h"
#include "tools/output_set.h"

namespace treesim::tools {
namespace {

using numeric::Rounding;

// A whole-string integer in [lo, hi], or a one-line CliError naming the option.
std::int64_t parse_integer(const std::string& text, const std::string& option, std::int64_t lo,
                           std::int64_t hi) {
  std::size_t start = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  bool ok = text.size() > start && text.size() - start <= 18;
  for (std::size_t i = start; i < text.size(); ++i)
    ok = ok && std::isdigit(static_cast<unsigned char>(text[i]));
  const std::int64_t v = ok ? std::stoll(text) : 0;
  if (!ok || v < lo || v > hi)
    throw CliError(
        fmt::format("{}: expected an integer in [{}, {}], got '{}'", option, lo, hi, core::echo(text)));
  return v;
}

double parse_real(const std::string& text, const std::string& what) {
  double v = 0;
  std::size_t used = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::logic_error&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v) || !core::is_decimal_number(text, true))
    throw CliError(fmt::format("{}: expected a finite real number, got '{}'", what, core::echo(text)));
  return v;
}

Rounding parse_rounding_option(const std::string& text, bool allow_upward) {
  const auto r = numeric::parse_rounding(text);
  if (!r || *r == Rounding::kFloat || (!allow_upward && *r == Rounding::kDoubleUpward))
    throw CliError(fmt::format("--rounding: expected double{}, got '{}'",
                               allow_upward ? ", single or double_upward" : " or single", core::echo(text)));
  return *r;
}

void add_multiplier(CLI::App& quant) {
  auto* cmd =
      quant.add_subcommand("multiplier", "Turn a real multiplier into TFLite's (int32 multiplier, shift)");
  auto real = std::make_shared<std::string>();
  auto rounding = std::make_shared<std::string>("double");
  auto json = std::make_shared<bool>(false);
  cmd->add_option("REAL", *real, "The real multiplier, e.g. 0.0049871")->required();
  cmd->add_option("--rounding", *rounding,
                  "Build whose QuantizeMultiplier to follow: double (default) or single");
  cmd->add_flag("--json", *json, "Print {\"multiplier\": Q, \"shift\": S}");
  cmd->callback([real, rounding, json] {
    const double m = parse_real(*real, "quant multiplier");
    const numeric::QuantizedMultiplier q =
        numeric::quantize_multiplier(m, parse_rounding_option(*rounding, false));
    if (*json) {
      emit(fmt::format("{{\"multiplier\": {}, \"shift\": {}}}\n", q.multiplier, q.shift));
    } else {
      emit(fmt::format("multiplier {} shift {}: {} ~ {} * 2^({} - 31) = {:.17g}\n", q.multiplier, q.shift,
                       *real, q.multiplier, q.shift,
                       std::ldexp(static_cast<double>(q.multiplier), q.shift - 31)));
    }
  });
}

void add_mbqm(CLI::App& quant) {
  auto* cmd = quant.add_subcommand(
      "mbqm", "MultiplyByQuantizedMultiplier(x, multiplier, shift) in a rounding flavour");
  auto x = std::make_shared<std::string>();
  auto q = std::make_shared<std::string>();
  auto shift = std::make_shared<std::string>();
  auto rounding = std::make_shared<std::string>("double");
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--x", *x, "The int32 accumulator")->required();
  cmd->add_option("--multiplier", *q, "The int32 fixed-point multiplier (Q0.31)")->required();
  cmd->add_option("--shift", *shift, "The shift (> 0 shifts left)")->required();
  cmd->add_option("--rounding", *rounding, "double (default, TFLite reference), single or double_upward");
  cmd->add_flag("--json", *json, "Print {\"value\": V}");
  cmd->callback([x, q, shift, rounding, json] {
    constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min(),
                           hi = std::numeric_limits<std::int32_t>::max();
    const auto xv = static_cast<std::int32_t>(parse_integer(*x, "--x", lo, hi));
    const auto qv = static_cast<std::int32_t>(parse_integer(*q, "--multiplier", lo, hi));
    const auto sv = static_cast<int>(parse_integer(*shift, "--shift", -63, 63));
    const Rounding r = parse_rounding_option(*rounding, true);
    if (auto why = numeric::mbqm_contract_violation(xv, qv, sv, r))
      throw CliError(fmt::format("quant mbqm: MBQM({}, {}, {}) is outside the {} rounding contract: {}", xv,
                                 qv, sv, numeric::to_string(r), *why));
    const std::int32_t v = numeric::multiply_by_quantized_multiplier(xv, qv, sv, r);
    emit(*json ? fmt::format("{{\"value\": {}}}\n", v)
               : fmt::format("MBQM({}, {}, {}) = {} ({} rounding)\n", xv, qv, sv, v, numeric::to_string(r)));
  });
}

// An .npy operand of the GEMM: a 2-D int8 or uint8 matrix.
struct Matrix {
  core::DType dtype;
  std::uint64_t rows, cols;
  std::vector<std::int32_t> codes;
};

Matrix read_matrix(const std::string& path, const char* what) {
  const io::NpyArray a = io::read_npy(path);
  if (a.dtype != core::DType::kInt8 && a.dtype != core::DType::kUInt8)
    throw CliError(fmt::format("{}: expected dtype int8 or uint8 for {}, got {}", path, what,
                               core::dtype_name(a.dtype)));
  if (a.shape.size() != 2)
    throw CliError(
        fmt::format("{}: expected a 2-D matrix for {}, got shape {}", path, what, io::shape_string(a.shape)));
  if (a.shape[0] == 0 || a.shape[1] == 0)
    throw CliError(
        fmt::format("{}: expected a matrix of at least one row and one column for {}, got shape {}", path,
                    what, io::shape_string(a.shape)));
  return {a.dtype == core::DType::kInt8 ? core::DType::kInt8 : core::DType::kUInt8, a.shape[0], a.shape[1],
          io::npy_integers(a, path)};
}

void add_gemm(CLI::App& quant) {
  auto* cmd = quant.add_subcommand("gemm", "Run the host reference quantized GEMM C = requant(A·B + bias)");
  auto a = std::make_shared<std::string>();
  auto b = std::make_shared<std::string>();
  auto bias = std::make_shared<std::string>();
  auto qfile = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("--a", *a, "A: M×K int8 or uint8 .npy")->required();
  cmd->add_option("--b", *b, "B: K×N int8 or uint8 .npy")->required();
  cmd->add_option("--bias", *bias, "bias: N int32 .npy (optional)");
  cmd->add_option("--quant", *qfile, "Quantization file (YAML)")->required();
  cmd->add_option("--out", *out, "C: M×N .npy of out_dtype")->required();
  cmd->callback([a, b, bias, qfile, out] {
    OutputSet outputs;
    outputs.stage(*out, "--out");
    try {
      const numeric::QuantFile q = numeric::load_quant_file(*qfile);
      const Matrix A = read_matrix(*a, "A"), B = read_matrix(*b, "B");
      if (A.cols != B.rows)
        throw CliError(fmt::format("A is {}×{} but B is {}×{}: A's columns must equal B's rows", A.rows,
                                   A.cols, B.rows, B.cols));
      std::vector<std::int32_t> bias_values;
      if (!bias->empty()) {
        const io::NpyArray t = io::read_npy(*bias);
        bias_values = io::npy_values<std::int32_t>(t, *bias);
        if (t.shape.size() != 1 || t.shape[0] != B.cols)
          throw CliError(fmt::format("{}: expected bias of shape ({},), got {}", *bias, B.cols,
                                     io::shape_string(t.shape)));
      }
      const std::size_t channels = q.out.multipliers.size();
      if (channels != 1 && channels != B.cols)
        throw CliError(fmt::format("{}: {} multipliers for N = {} output columns (expected 1 or {})", *qfile,
                                   channels, B.cols, B.cols));
      numeric::QGemmParams p;
      p.M = A.rows;
      p.K = A.cols;
      p.N = B.cols;
      p.a_dtype = A.dtype;
      p.b_dtype = B.dtype;
      p.a_zero_point = q.a_zero_point;
      p.b_zero_point = q.b_zero_point;
      p.out = q.out;
      const std::vector<std::int32_t> c = numeric::reference_qgemm(p, A.codes, B.codes, bias_values);
      const std::vector<std::uint64_t> shape = {A.rows, B.cols};
      const std::string tmp = outputs.stage(*out, "--out");
      if (q.out.out_dtype == core::DType::kUInt8)
        io::write_npy(tmp, io::make_npy(shape, std::vector<std::uint8_t>(c.begin(), c.end())));
      else
        io::write_npy(tmp, io::make_npy(shape, std::vector<std::int8_t>(c.begin(), c.end())));
      outputs.commit();
      emit(fmt::format("C = {} {}×{} ({} rounding, {}): {}\n", core::dtype_name(q.out.out_dtype), A.rows,
                       B.cols, numeric::to_string(q.out.rounding),
                       channels == 1 ? "per tensor" : "per column", *out));
    } catch (const numeric::QuantFileError& e) {
      throw CliError(e.what());
    } catch (const numeric::QuantError& e) {
      throw CliError(std::string("quant gemm: ") + e.what());
    } catch (const io::NpyError& e) {
      throw CliError(e.what());
    }
  });
}

}  // namespace

void add_quant_command(CLI::App& app) {
  auto* quant = app.add_subcommand("quant", "Quantized int8 arithmetic: multiplier, mbqm, gemm");
  quant->require_subcommand(1);
  add_multiplier(*quant);
  add_mbqm(*quant);
  add_gemm(*quant);
}

}  // namespace treesim::tools
