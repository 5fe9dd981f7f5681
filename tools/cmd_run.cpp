// `treesim run qgemm`: a quantized int8 GEMM on the modelled machine, verified bit-exactly.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <iostream>
#include <random>

#include "kernels/qgemm/qgemm.h"
#include "kernels/qgemm/verify.h"
#include "sim/io/npy.h"
#include "sim/layout/diagnostic.h"
#include "sim/numeric/qgemm_reference.h"
#include "sim/numeric/quant_file.h"
#include "tools/cli.h"
#include "tools/run_options.h"

namespace treesim::tools {
namespace {

struct QgemmOptions {
  std::string machine;
  std::uint64_t m = 0, n = 0, k = 0;
  std::string dtype_a = "s8", dtype_b = "s8", dtype_out = "s8";
  std::optional<std::int32_t> a_zero, b_zero, out_zero;
  bool per_channel = false, no_bias = false;
  std::string act = "none";
  std::uint64_t seed = 1;
  std::string a_path, b_path, bias_path, quant_path, out_path;
  std::string layout_a, layout_b, layout_c;
  bool verify = false, plan_only = false;
  RunOptions run;
};

core::DType parse_operand_dtype(const std::string& text, const char* option) {
  // The short spellings of oneDNN (u8, s8) and the canonical names.
  if (text == "u8") return core::DType::kUInt8;
  if (text == "s8") return core::DType::kInt8;
  std::optional<core::DType> t = core::parse_dtype(text);
  if (!t || !core::is_8bit(*t))
    throw CliError(fmt::format("{}: expected u8 or s8 (uint8, int8), got '{}'", option, text));
  return *t;
}

core::DType to_numeric(core::DType t) {
  return t == core::DType::kUInt8 ? core::DType::kUInt8 : core::DType::kInt8;
}

// Host operands as the program's DRAM bytes and as the reference's int32 codes.
struct Operands {
  std::vector<std::uint8_t> a, b, bias;
  std::vector<std::int32_t> a_codes, b_codes, bias_values;
};

std::int32_t code(std::uint8_t byte, core::DType t) {
  return t == core::DType::kUInt8 ? byte : static_cast<std::int8_t>(byte);
}

io::NpyArray read_npy_or_throw(const std::string& path) {
  try {
    return io::read_npy(path);
  } catch (const std::runtime_error& e) {
    throw CliError(e.what());
  }
}

// Reads an int8/uint8 matrix from .npy and checks its shape against what the other inputs say.
std::vector<std::uint8_t> read_operand(const std::string& path, core::DType& dtype, std::uint64_t& rows,
                                       std::uint64_t& cols, const char* rows_name, const char* cols_name) {
  io::NpyArray a = read_npy_or_throw(path);
  if (a.dtype != core::DType::kInt8 && a.dtype != core::DType::kUInt8)
    throw CliError(fmt::format("{}: expected int8 or uint8 values, got {}", path, core::dtype_name(a.dtype)));
  if (a.shape.size() != 2)
    throw CliError(
        fmt::format("{}: expected a matrix (2 dimensions), got shape {}", path, io::shape_string(a.shape)));
  auto agree = [&](std::uint64_t& want, std::uint64_t got, const char* name) {
    if (want != 0 && want != got)
      throw CliError(fmt::format("{}: shape {} gives {} = {}, but {} = {} elsewhere", path,
                                 io::shape_string(a.shape), name, got, name, want));
    want = got;
  };
  agree(rows, a.shape[0], rows_name);
  agree(cols, a.shape[1], cols_name);
  dtype = a.dtype == core::DType::kUInt8 ? core::DType::kUInt8 : core::DType::kInt8;
  return std::move(a.bytes);
}

kernels::QgemmProblem problem_from_options(QgemmOptions& o, Operands& ops) {
  kernels::QgemmProblem p;
  const bool data = !o.a_path.empty() || !o.b_path.empty() || !o.quant_path.empty() || !o.bias_path.empty();
  if (data) {
    if (o.a_path.empty() || o.b_path.empty() || o.quant_path.empty())
      throw CliError(
          "--a, --b and --quant go together (and --bias optionally); or use --seed for random operands");
    p.m = o.m, p.n = o.n, p.k = o.k;
    ops.a = read_operand(o.a_path, p.a_dtype, p.m, p.k, "M", "K");
    std::uint64_t k2 = p.k;
    ops.b = read_operand(o.b_path, p.b_dtype, k2, p.n, "K", "N");
    const numeric::QuantFile q = [&] {
      try {
        return numeric::load_quant_file(o.quant_path);
      } catch (const std::runtime_error& e) {
        throw CliError(e.what());
      }
    }();
    p.a_zero = q.a_zero_point, p.b_zero = q.b_zero_point;
    p.out = q.out;
    if (!o.bias_path.empty()) {
      io::NpyArray bias = read_npy_or_throw(o.bias_path);
      if (bias.dtype != core::DType::kInt32 || bias.shape != std::vector<std::uint64_t>{p.n})
        throw CliError(fmt::format("{}: expected int32 of shape ({},), got {} {}", o.bias_path, p.n,
                                   core::dtype_name(bias.dtype), io::shape_string(bias.shape)));
      p.has_bias = true;
      ops.bias = std::move(bias.bytes);
    }
  } else {
    if (o.m == 0 || o.n == 0 || o.k == 0) throw CliError("give --m, --n and --k (or --a/--b/--quant files)");
    p.m = o.m, p.n = o.n, p.k = o.k;
    p.a_dtype = parse_operand_dtype(o.dtype_a, "--dtype-a");
    p.b_dtype = parse_operand_dtype(o.dtype_b, "--dtype-b");
    core::DType out = parse_operand_dtype(o.dtype_out, "--dtype-out");
    auto default_zero = [](core::DType t) { return t == core::DType::kUInt8 ? 128 : 0; };
    p.a_zero = o.a_zero.value_or(default_zero(p.a_dtype));
    p.b_zero = o.b_zero.value_or(default_zero(p.b_dtype));
    p.out.out_dtype = to_numeric(out);
    p.out.out_zero_point = o.out_zero.value_or(default_zero(out));
    p.out.act_min = out == core::DType::kUInt8 ? 0 : -128;
    p.out.act_max = out == core::DType::kUInt8 ? 255 : 127;
    // Seeded problems take an output scale of 1/20 (so 6.0 is 120 codes) for the activations.
    if (o.act == "relu" || o.act == "relu6") p.out.act_min = std::max(p.out.act_min, p.out.out_zero_point);
    if (o.act == "relu6") p.out.act_max = std::min(p.out.act_max, p.out.out_zero_point + 120);
    if (o.act != "none" && o.act != "relu" && o.act != "relu6")
      throw CliError(fmt::format("--act: expected none, relu or relu6, got '{}'", o.act));
    std::mt19937_64 gen(o.seed);
    auto bytes = [&](std::uint64_t n) {
      std::vector<std::uint8_t> v(n);
      for (auto& x : v) x = static_cast<std::uint8_t>(gen() >> 24);
      return v;
    };
    ops.a = bytes(p.m * p.k);
    ops.b = bytes(p.k * p.n);
    // Spread the accumulators (≈ √K·128²/3 wide) over the output range.
    const double base = 1.0 / (128.0 * std::sqrt(static_cast<double>(p.k)));
    p.out.multipliers.clear();
    for (std::uint64_t c = 0; c < (o.per_channel ? p.n : 1); ++c) {
      double scale = o.per_channel ? base * (0.5 + static_cast<double>(gen() % 1000) / 1000.0) : base;
      p.out.multipliers.push_back(numeric::quantize_multiplier(scale));
    }
    if (!o.no_bias) {
      p.has_bias = true;
      ops.bias.resize(p.n * 4);
      for (std::uint64_t c = 0; c < p.n; ++c) {
        std::int32_t v = static_cast<std::int32_t>(gen() % 65536) - 32768;
        std::memcpy(ops.bias.data() + c * 4, &v, 4);
      }
    }
  }
  ops.a_codes.resize(ops.a.size());
  ops.b_codes.resize(ops.b.size());
  for (std::size_t i = 0; i < ops.a.size(); ++i) ops.a_codes[i] = code(ops.a[i], p.a_dtype);
  for (std::size_t i = 0; i < ops.b.size(); ++i) ops.b_codes[i] = code(ops.b[i], p.b_dtype);
  ops.bias_values.resize(ops.bias.size() / 4);
  if (!ops.bias.empty()) std::memcpy(ops.bias_values.data(), ops.bias.data(), ops.bias.size());
  try {
    kernels::check_problem(p);
  } catch (const kernels::QgemmError& e) {
    throw CliError(e.what());
  }
  return p;
}

std::vector<std::uint8_t> int32_bytes(const std::vector<std::int32_t>& v) {
  std::vector<std::uint8_t> out(v.size() * 4);
  if (!v.empty()) std::memcpy(out.data(), v.data(), out.size());
  return out;
}

void run_qgemm(QgemmOptions& o) {
  machine::MachineConfig machine = load_machine_or_throw(o.machine);
  Operands ops;
  kernels::QgemmProblem problem = problem_from_options(o, ops);
  kernels::QgemmPlan plan;
  try {
    kernels::Assignment fixed =
        kernels::assignment_from_layouts(problem, machine, o.layout_a, o.layout_b, o.layout_c);
    // Whatever the layouts leave open (levels, passes, K steps), the planner chooses.
    plan = kernels::default_plan(problem, machine, fixed);
  } catch (const layout::LayoutError& e) {
    std::string what = e.what();
    while (!what.empty() && what.back() == '\n') what.pop_back();
    throw CliError("invalid layout:\n" + what);
  } catch (const kernels::QgemmError& e) {
    throw CliError(e.what());
  }
  const std::string a_layout = kernels::whole_layout_a(problem, plan, machine);
  const std::string b_layout = kernels::whole_layout_b(problem, plan, machine);
  const std::string c_layout = kernels::whole_layout_c(problem, plan, machine);
  if (!o.run.quiet || o.plan_only) {
    std::cout << kernels::describe(plan, machine) << "\n"
              << "layouts: A " << a_layout << "\n         B " << b_layout << "\n         C " << c_layout
              << "\n";
  }
  if (o.plan_only) return;
  program::Program prog = kernels::build_program(problem, plan, machine);
  std::map<std::string, std::vector<std::uint8_t>> dram{{"A", ops.a}, {"B", ops.b}};
  if (problem.has_bias) dram["bias"] = ops.bias;
  if (problem.per_channel()) {
    std::vector<std::int32_t> mult, shift;
    for (const auto& q : problem.out.multipliers) {
      mult.push_back(q.multiplier);
      shift.push_back(q.shift);
    }
    dram["multiplier"] = int32_bytes(mult);
    dram["shift"] = int32_bytes(shift);
  }
  models::SimulationResult r = run_simulation(machine, prog, std::move(dram), o.run.simulation());
  report::RunStats& stats = r.stats;
  stats.kernel = "qgemm";
  stats.info["plan"] = kernels::describe(plan, machine);
  stats.info["layout_a"] = a_layout;
  stats.info["layout_b"] = b_layout;
  stats.info["layout_c"] = c_layout;
  for (auto [key, value] : {std::pair{"m", problem.m},
                            {"n", problem.n},
                            {"k", problem.k},
                            {"tile_m", plan.tm},
                            {"tile_n", plan.tn},
                            {"tile_k", plan.kt},
                            {"k_steps", plan.steps},
                            {"passes", plan.m_passes * plan.n_passes}})
    stats.extra[key] = value;
  const std::vector<std::uint8_t>& c = r.dram.at("C");
  if (o.verify) {
    numeric::QGemmParams params;
    params.M = problem.m, params.N = problem.n, params.K = problem.k;
    params.a_dtype = to_numeric(problem.a_dtype), params.b_dtype = to_numeric(problem.b_dtype);
    params.a_zero_point = problem.a_zero, params.b_zero_point = problem.b_zero;
    params.out = problem.out;
    std::vector<std::int32_t> expect;
    try {
      expect = numeric::reference_qgemm(params, ops.a_codes, ops.b_codes, ops.bias_values);
    } catch (const numeric::QuantError& e) {
      throw CliError(std::string("the host reference rejects this problem: ") + e.what());
    }
    std::vector<std::int32_t> got(c.size());
    for (std::size_t i = 0; i < c.size(); ++i) got[i] = code(c[i], problem.out_dtype());
    report::VerifyResult v = kernels::compare_outputs(got, expect, problem.n);
    stats.verify = v;
  }
  finish_run(machine, stats, o.run);
  if (!o.out_path.empty()) {
    io::NpyArray out;
    out.dtype = npy_dtype(problem.out_dtype());
    out.shape = {problem.m, problem.n};
    out.bytes = c;
    try {
      io::write_npy(o.out_path, out);
    } catch (const std::runtime_error& e) {
      throw CliError(e.what());
    }
  }
  if (stats.verify && !stats.verify->ok)
    throw CliError(fmt::format("verify failed: {} of {} elements differ; first {}", stats.verify->mismatches,
                               problem.m * problem.n, stats.verify->first_mismatch),
                   1);
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto* run = app.add_subcommand("run", "Run a kernel on a machine");
  run->require_subcommand(1);
  auto* cmd =
      run->add_subcommand("qgemm", "Quantized int8 GEMM C = requant(A·B + bias), verified bit-exactly");
  auto o = std::make_shared<QgemmOptions>();
  cmd->add_option("--machine", o->machine, "Machine file (YAML)")->required();
  cmd->add_option("--m", o->m, "Rows of A and C")->check(CLI::PositiveNumber);
  cmd->add_option("--n", o->n, "Columns of B and C")->check(CLI::PositiveNumber);
  cmd->add_option("--k", o->k, "Columns of A, rows of B")->check(CLI::PositiveNumber);
  cmd->add_option("--dtype-a", o->dtype_a, "A's type with --seed: u8 or s8")->capture_default_str();
  cmd->add_option("--dtype-b", o->dtype_b, "B's type with --seed: u8 or s8")->capture_default_str();
  cmd->add_option("--dtype-out", o->dtype_out, "C's type with --seed: u8 or s8")->capture_default_str();
  cmd->add_option("--a-zero", o->a_zero, "A's zero point with --seed (default 128 for u8, 0 for s8)");
  cmd->add_option("--b-zero", o->b_zero, "B's zero point with --seed (default 128 for u8, 0 for s8)");
  cmd->add_option("--out-zero", o->out_zero, "C's zero point with --seed (default 128 for u8, 0 for s8)");
  cmd->add_flag("--per-channel", o->per_channel, "With --seed: one requant multiplier per output column");
  cmd->add_flag("--no-bias", o->no_bias, "With --seed: no bias");
  cmd->add_option("--act", o->act, "With --seed: none, relu or relu6 (output scale 1/20)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Seed of the random operands")->capture_default_str();
  cmd->add_option("--a", o->a_path, "A as .npy (int8/uint8, M×K)");
  cmd->add_option("--b", o->b_path, "B as .npy (int8/uint8, K×N)");
  cmd->add_option("--bias", o->bias_path, "bias as .npy (int32, N)");
  cmd->add_option("--quant", o->quant_path, "Quantization file (YAML) for --a/--b");
  cmd->add_option("--out", o->out_path, "Write C as .npy");
  cmd->add_option("--layout-a", o->layout_a, "Layout of the whole A (M×K): which levels split M and K");
  cmd->add_option("--layout-b", o->layout_b, "Layout of the whole B (K×N): which levels split K and N");
  cmd->add_option("--layout-c", o->layout_c, "Layout of the whole C (M×N): which levels split M and N");
  cmd->add_flag("--verify", o->verify,
                "Compare every element with the host reference (exit 1 on a mismatch)");
  cmd->add_flag("--plan", o->plan_only, "Print the plan and layouts, run nothing");
  add_run_options(*cmd, o->run);
  cmd->callback([o] { run_qgemm(*o); });
}

}  // namespace treesim::tools
