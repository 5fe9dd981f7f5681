// tgemm's options and its problem: random operands from --seed, or A, W (int8 .npy of −1/0/+1 or a
// .dpt file), bias and the output stage from files.
#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/float_operands.h"
#include "kernels/gemm/gemm_files.h"
#include "kernels/gemm/gemm_options.h"
#include "kernels/seeded_options.h"
#include "kernels/tgemm/tgemm_kernel.h"
#include "sim/io/npy.h"
#include "sim/numeric/dpt_file.h"
#include "sim/numeric/quant_file.h"
#include "sim/numeric/ternary_tensor.h"

namespace treesim::kernels {
namespace {

WeightEncoding encoding_of(const std::string& text) {
  for (WeightEncoding e : kWeightEncodings)
    if (text == to_string(e)) return e;
  return WeightEncoding::kDpt;
}

TgemmInstance::Layouts layouts_of(const Options& o) {
  return {o.text("layout-a"), o.text("layout-w"), o.text("layout-c")};
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// W's weights from an int8 .npy of −1/0/1, a float .npy ternarized with q's b_scale (or absmean),
// or a .dpt file; K and N from its shape.
Result<std::vector<std::int8_t>> read_weights(const std::string& path, std::uint64_t& k, std::uint64_t& n,
                                              numeric::QuantFile& q, const std::string& quant_path) {
  std::vector<std::uint64_t> shape;
  std::vector<std::int8_t> w;
  if (ends_with(path, ".dpt")) {
    try {
      numeric::PackedTernary packed = numeric::read_dpt_file(path);
      shape = packed.shape;
      if (shape.size() == 2) w = numeric::unpack_ternary(packed, /*strict=*/true);
    } catch (const numeric::TernaryError& e) {
      return core::Error{path, fmt::format("payload byte offset {}: {}", e.index(), e.what())};
    } catch (const std::exception& e) {
      return core::Error{"", e.what()};
    }
  } else {
    try {
      io::NpyArray a = io::read_npy(path);
      if (a.dtype != core::DType::kInt8 && !is_float_operand(a.dtype))
        return core::Error{path,
                           fmt::format("expected int8 weights −1, 0 or 1 (or float32, float16, bfloat16 "
                                       "ones to ternarize), got {}",
                                       core::dtype_name(a.dtype))};
      shape = a.shape;
      if (!is_float_operand(a.dtype)) {
        w.assign(a.bytes.begin(), a.bytes.end());
      } else if (shape.size() == 2) {
        auto t = ternarize_operand(a, path, q, quant_path);
        if (!t) return t.errors();
        w = std::move(t.value());
      }
    } catch (const std::runtime_error& e) {
      return core::Error{"", e.what()};
    }
  }
  if (shape.size() != 2)
    return core::Error{
        path, fmt::format("expected a K×N matrix (2 dimensions), got shape {}", io::shape_string(shape))};
  if (shape[0] == 0 || shape[1] == 0)
    return core::Error{path, fmt::format("expected a matrix of at least one row and one column, got shape {}",
                                         io::shape_string(shape))};
  for (std::size_t i = 0; i < w.size(); ++i)
    if (w[i] < -1 || w[i] > 1)
      return core::Error{path, fmt::format("element [{}, {}] (index {}) is {}, expected -1, 0 or 1",
                                           i / shape[1], i % shape[1], i, w[i])};
  for (auto [want, got, name] : {std::tuple{&k, shape[0], "K"}, {&n, shape[1], "N"}}) {
    if (*want != 0 && *want != got)
      return core::Error{path, fmt::format("shape {} gives {} = {}, but {} = {} elsewhere",
                                           io::shape_string(shape), name, got, name, *want)};
    *want = got;
  }
  return w;
}

Result<std::unique_ptr<Problem>> from_files(const Options& o, const machine::MachineConfig& machine) {
  TgemmOperands ops;
  Result<GemmFiles> f = read_gemm_files(
      o, "w",
      [&](GemmFiles& files, const std::string& quant) -> core::Errors {
        auto w = read_weights(o.text("w"), files.p.k, files.p.n, files.q, quant);
        if (!w) return w.errors();
        ops.w = std::move(w.value());
        if (files.q.b_zero_point != 0)
          return {core::Error{quant,
                              fmt::format("field 'b_zero_point': ternary weights have zero point 0, got {}",
                                          files.q.b_zero_point)}};
        return {};
      },
      machine);
  return instance_from_files(std::move(f), [&](GemmFiles& files) {
    ops.a = std::move(files.a), ops.bias = std::move(files.bias);
    return std::make_unique<TgemmInstance>(std::move(files.p), encoding_of(o.text("weight-encoding")),
                                           std::move(ops), layouts_of(o));
  });
}

Result<std::unique_ptr<Problem>> from_seed(const Options& o, const machine::MachineConfig& machine) {
  Result<QgemmProblem> problem = seeded_gemm_problem(o, WeightPath::kTernary, &tgemm_seeded_scale, machine);
  if (!problem) return problem.errors();
  QgemmProblem& p = problem.value();
  const bool per_channel = o.flag("per-channel");
  const WeightEncoding e = encoding_of(o.text("weight-encoding"));
  const std::uint64_t seed = o.unsigned_int("seed").value_or(1);
  if (per_channel && p.n == 1) {  // one drawn multiplier is a per-tensor one: the program holds it
    TgemmOperands ops = draw_tgemm_operands(p, seed, per_channel);
    p.out.multipliers = ops.multipliers;
    return std::unique_ptr<Problem>(new TgemmInstance(std::move(p), e, std::move(ops), layouts_of(o)));
  }
  return std::unique_ptr<Problem>(new TgemmInstance(std::move(p), e, seed, per_channel, layouts_of(o)));
}

Result<std::unique_ptr<Problem>> make_tgemm(const Options& o, const machine::MachineConfig& machine) {
  if (o.text("weight-encoding") == "all")
    return core::Error{"--weight-encoding", "all compares the encodings in `treesim run`: choose one here"};
  return operands_from_files(o, "w") ? from_files(o, machine) : from_seed(o, machine);
}

}  // namespace

Kernel tgemm_kernel() {
  return gemm_kernel("tgemm",
                     "Ternary-weight GEMM C = requant(A·W + bias), W packed (DPT) and decoded in the PEs",
                     gemm_options(WeightPath::kTernary), "43", &make_tgemm, "weight-encoding");
}

}  // namespace treesim::kernels
