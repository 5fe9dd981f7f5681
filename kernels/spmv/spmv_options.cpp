// spmv's and spmm's options and problems: A from a matrix file (.mtx, Harwell-Boeing, METIS graph)
// or random with --rows/--nnz-per-row, x / B from .npy or the seed, bias and the output stage from
// files or defaults.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "kernels/kernel.h"
#include "kernels/spmv/spmv.h"
#include "kernels/spmv/spmv_kernel.h"
#include "sim/core/mt19937_64.h"
#include "sim/io/npy.h"
#include "sim/numeric/quant_file.h"
#include "sim/sparse/matrix_file.h"
#include "sim/sparse/prune.h"
#include "sim/sparse/quantized.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::kernels {
namespace {

// A random value code: a nonzero int8 in [−127, 127].
std::int8_t draw_value(core::Mt19937_64& gen) {
  const auto v = static_cast<std::int8_t>(static_cast<int>(gen() % 254) - 127);
  return v >= 0 ? static_cast<std::int8_t>(v + 1) : v;
}

// The n_out_of_m level's n and m, when the encoding has one (random matrices respect it).
std::pair<std::uint64_t, std::uint64_t> n_of_m(const sparse::Encoding& e) {
  for (const sparse::Level& l : e.levels)
    if (l.type.format == sparse::LevelFormat::kNOutOfM) return {l.type.n, l.type.m};
  return {0, 0};
}

// `per_row` distinct columns in each row, drawn from `gen`; with an n:m encoding at most n in every
// block of m columns.
sparse::Coo random_matrix(std::uint64_t rows, std::uint64_t cols, std::uint64_t per_row,
                          const sparse::Encoding& e, core::Mt19937_64& gen) {
  sparse::Coo a{rows, cols, {}};
  const auto [n, m] = n_of_m(e);
  const std::uint64_t cap =
      n ? std::min(per_row, cols / m * n + std::min(n, cols % m)) : std::min(per_row, cols);
  for (std::uint64_t r = 0; r < rows; ++r) {
    std::set<std::uint64_t> chosen;
    std::map<std::uint64_t, std::uint64_t> per_block;
    while (chosen.size() < cap) {
      const std::uint64_t c = gen() % cols;
      if (chosen.count(c) || (n && per_block[c / m] == n)) continue;
      chosen.insert(c);
      if (n) ++per_block[c / m];
    }
    for (std::uint64_t c : chosen) a.entries.push_back({r, c, static_cast<double>(draw_value(gen))});
  }
  return a;
}

// A file's triples summed per (row, col), in row-major order, with int8 codes: the reals quantized
// (sparse::quantize_values), or for a pattern file values drawn from `gen`.
sparse::Coo file_matrix(sparse::MatrixFile f, core::Mt19937_64& gen) {
  sparse::Coo a = sparse::sum_duplicates(std::move(f.coo));
  if (f.pattern) {
    for (sparse::Triple& t : a.entries) t.value = draw_value(gen);
  } else {
    std::vector<double> reals(a.entries.size());
    for (std::size_t i = 0; i < a.entries.size(); ++i) reals[i] = a.entries[i].value;
    const sparse::QuantizedValues q = sparse::quantize_values(reals);
    for (std::size_t i = 0; i < a.entries.size(); ++i) a.entries[i].value = q.values[i];
  }
  return a;
}

Result<io::NpyArray> read_npy_file(const std::string& option, const std::string& path) {
  try {
    return io::read_npy(path);
  } catch (const std::runtime_error& e) {
    return core::Error{option, e.what()};
  }
}

// x and y (spmv), or B and C (spmm: cols × n and rows × n bytes), must fit the DRAM: checked on A's
// declared size before anything is allocated by it. The option blamed is the one that makes it too
// large: A's (`a_option`), or --n where one column would fit.
std::optional<core::Error> vectors_error(std::uint64_t rows, std::uint64_t cols, std::uint64_t n, bool spmm,
                                         const std::string& a_option, const machine::MachineConfig& machine) {
  const auto bytes = checked_mul(std::max(cols, rows), std::max<std::uint64_t>(n, 1));
  if (bytes && *bytes <= machine.dram.bytes) return std::nullopt;
  if (!spmm)
    return core::Error{a_option,
                       fmt::format("x and y of a {}×{} A need {} bytes each, more than the machine's "
                                   "{}-byte DRAM",
                                   rows, cols, std::max(cols, rows), machine.dram.bytes)};
  if (std::max(cols, rows) <= machine.dram.bytes)
    return core::Error{"--n", fmt::format("{} columns of B and C need more than the machine's {}-byte DRAM",
                                          n, machine.dram.bytes)};
  return core::Error{a_option,
                     fmt::format("one column of B and of C of a {}×{} A needs {} bytes, more than the "
                                 "machine's {}-byte DRAM",
                                 rows, cols, std::max(cols, rows), machine.dram.bytes)};
}

Result<std::unique_ptr<Problem>> make_sparse(const Options& o, const machine::MachineConfig& machine,
                                             bool spmm) {
  SparseProblem p;
  p.spmm = spmm;
  p.encoding_name = o.text("encoding");
  try {
    p.encoding = sparse::parse_encoding(p.encoding_name);
  } catch (const sparse::SparseError& e) {
    return core::Error{"--encoding", e.what()};
  }
  if (!sparse::parse_partition(o.text("partition"), p.partition))
    return core::Error{"--partition", "all compares the others; it is not a partition itself"};
  p.n = spmm ? o.unsigned_int("n").value_or(0) : 1;
  core::Mt19937_64 gen(o.unsigned_int("seed").value_or(1));
  const std::string matrix = o.text("matrix");
  const auto rows = o.unsigned_int("rows"), per_row = o.unsigned_int("nnz-per-row");
  if (matrix.empty() == !rows)
    return core::Error{"--matrix", "give a matrix file (--matrix) or a random matrix's --rows"};
  if (!matrix.empty()) {
    try {
      sparse::MatrixFile f = sparse::read_matrix_file(matrix);  // the entries only: nothing per row yet
      if (auto e = vectors_error(f.coo.rows, f.coo.cols, p.n, spmm, "--matrix", machine)) return *e;
      p.a = file_matrix(std::move(f), gen);
    } catch (const std::runtime_error& e) {
      return core::Error{"--matrix", e.what()};
    }
    p.matrix = matrix.substr(matrix.find_last_of('/') + 1);
    if (o.flag("prune")) {
      const auto [n, m] = n_of_m(p.encoding);
      if (!n) return core::Error{"--prune", "needs an n:m encoding (2:4, ...) to prune to"};
      const std::uint64_t dropped = sparse::prune_n_of_m(p.a, n, m);
      p.matrix += fmt::format(", pruned to {}:{} ({} entries dropped)", n, m, dropped);
    }
  } else {
    const std::uint64_t cols = o.unsigned_int("cols").value_or(*rows);
    const std::uint64_t k = per_row.value_or(std::min<std::uint64_t>(4, cols));
    // Refused before anything is allocated: the entries must stay small enough to simulate.
    if (cols > sparse::kMaxMatrixDim || *rows > sparse::kMaxMatrixDim)
      return core::Error{cols > sparse::kMaxMatrixDim ? "--cols" : "--rows",
                         fmt::format("{}x{} is larger than the {} rows and columns supported", *rows, cols,
                                     sparse::kMaxMatrixDim)};
    if (k > cols)
      return core::Error{"--nnz-per-row", fmt::format("{} nonzeros per row do not fit {} columns", k, cols)};
    if (auto e = vectors_error(*rows, cols, p.n, spmm, cols >= *rows ? "--cols" : "--rows", machine))
      return *e;
    const auto entries = checked_mul(*rows, k);
    if (!entries || *entries > sparse::kMaxMatrixEntries)
      return core::Error{"--rows", fmt::format("{} rows of {} nonzeros are more than the {} supported", *rows,
                                               k, sparse::kMaxMatrixEntries)};
    p.a = random_matrix(*rows, cols, k, p.encoding, gen);
    p.matrix = fmt::format("random {}x{}, {} per row", *rows, cols, k);
  }
  for (const sparse::Triple& t : p.a.entries) p.nonzeros += t.value != 0;
  const std::string b_option = spmm ? "b" : "x";
  const std::string b_path = o.text(b_option);
  if (spmm && p.n == 0 && b_path.empty()) return core::Error{"--n", "give B's columns (--n) or B (--b)"};
  if (!b_path.empty()) {
    auto b = read_npy_file("--" + b_option, b_path);
    if (!b) return b.errors();
    const std::vector<std::uint64_t> want =
        spmm ? std::vector<std::uint64_t>{p.a.cols, p.n ? p.n : (b->shape.size() == 2 ? b->shape[1] : 0)}
             : std::vector<std::uint64_t>{p.a.cols};
    if (b->dtype != core::DType::kInt8 || b->shape != want)
      return core::Error{
          "--" + b_option,
          fmt::format("{}: expected int8 of shape {}, got {} of shape {}", b_path, io::shape_string(want),
                      core::dtype_name(b->dtype), io::shape_string(b->shape))};
    if (spmm) p.n = want[1];
    p.b.resize(b->bytes.size());
    std::memcpy(p.b.data(), b->bytes.data(), b->bytes.size());
  } else {
    p.b.resize(p.a.cols * p.n);
    for (std::int8_t& v : p.b) v = static_cast<std::int8_t>(static_cast<int>(gen() % 256) - 128);
  }
  if (const std::string bias_path = o.text("bias"); !bias_path.empty()) {
    auto bias = read_npy_file("--bias", bias_path);
    if (!bias) return bias.errors();
    const std::uint64_t count = spmm ? p.n : p.a.rows;
    if (bias->dtype != core::DType::kInt32 || bias->shape != std::vector<std::uint64_t>{count})
      return core::Error{"--bias",
                         fmt::format("{}: expected int32 of shape ({},) (one per {}), got {} of shape {}",
                                     bias_path, count, spmm ? "column of C" : "row of y",
                                     core::dtype_name(bias->dtype), io::shape_string(bias->shape))};
    p.bias.resize(count);
    std::memcpy(p.bias.data(), bias->bytes.data(), count * 4);
  }
  if (const std::string quant = o.text("quant"); !quant.empty()) {
    numeric::QuantFile q;
    try {
      q = numeric::load_quant_file(quant);
    } catch (const std::runtime_error& e) {
      return core::Error{"--quant", e.what()};
    }
    if (q.a_zero_point != 0)
      return core::Error{
          "--quant", fmt::format("{}: a_zero_point must be 0 (A's int8 codes are symmetric), got {}", quant,
                                 q.a_zero_point)};
    if (q.b_zero_point < -128 || q.b_zero_point > 127)
      return core::Error{"--quant", fmt::format("{}: b_zero_point {} is outside int8 (x and B are int8)",
                                                quant, q.b_zero_point)};
    const std::size_t mults = q.out.multipliers.size();
    if (mults != 1 && !(spmm && mults == p.n))
      return core::Error{"--quant",
                         fmt::format("{}: {} multipliers; {} takes one (per tensor){}", quant, mults,
                                     spmm ? "spmm" : "spmv", spmm ? " or one per column of C" : "")};
    p.b_zero = q.b_zero_point;
    p.out = q.out;
  } else {
    // The default output stage: 1 / (16 · the most nonzeros in a row), so that typical sums land
    // inside int8.
    std::uint64_t most = 1;
    for (std::uint64_t n : sparse::row_entries(p.a)) most = std::max(most, n);
    p.out.multipliers = {numeric::quantize_multiplier(1.0 / (16.0 * static_cast<double>(most)))};
  }
  // A file's matrix rarely is n:m as stored: an n:m encoding that cannot store it says how to make it so.
  if (const auto [nm_n, nm_m] = n_of_m(p.encoding); nm_n && !matrix.empty() && !o.flag("prune"))
    p.placement_hint = fmt::format(" (--prune keeps the {} largest of every {} columns)", nm_n, nm_m);
  // A is placed by the options' encoding and partition when their plan is asked for (a plan file
  // or the tuner may choose others).
  return std::unique_ptr<Problem>(std::make_unique<SparseInstance>(std::move(p), machine));
}

Result<std::unique_ptr<Problem>> make_spmv(const Options& o, const machine::MachineConfig& m) {
  return make_sparse(o, m, false);
}
Result<std::unique_ptr<Problem>> make_spmm(const Options& o, const machine::MachineConfig& m) {
  return make_sparse(o, m, true);
}

std::vector<OptionSpec> sparse_options(bool spmm) {
  auto plain = [](const char* name, OptionKind kind, const char* help) {
    return OptionSpec{name, kind, help, std::nullopt, {}, {}, {}};
  };
  auto count = [](const char* name, const char* help) {
    return OptionSpec{name, OptionKind::kUnsigned, help, std::nullopt, {}, 1, std::nullopt};
  };
  std::vector<OptionSpec> o{
      plain("matrix", OptionKind::kPath, "A: a .mtx, Harwell-Boeing (.rua, .rsa, ...) or METIS .graph file"),
      count("rows", "Without --matrix: a random A with this many rows"),
      count("cols", "Random A's columns (default: --rows)"),
      count("nnz-per-row", "Random A's nonzeros per row (default 4)"),
      plain("prune", OptionKind::kFlag,
            "With --matrix and an n:m encoding: keep the n largest magnitudes of every m columns"),
      {"encoding",
       OptionKind::kText,
       "A's sparse_tensor encoding: a map or csr, csc, coo, dcsr, dcsc, bsr2x2, ell4, 2:4, ...",
       OptionValue{std::string("csr")},
       {},
       {},
       {}},
      {"partition",
       OptionKind::kChoice,
       "How A is split over the PEs: rows (equal ranges), nnz (balanced work), 2d; all compares them",
       OptionValue{std::string("rows")},
       {"rows", "nnz", "2d", "all"},
       {},
       {}},
      {"seed",
       OptionKind::kUnsigned,
       "Seed of the random A, x / B and a pattern file's values",
       OptionValue{std::uint64_t{1}},
       {},
       {},
       {}}};
  if (spmm) {
    o.push_back(count("n", "Columns of B and C"));
    o.push_back(plain("b", OptionKind::kPath, "B as .npy (int8, cols × n)"));
    o.push_back(plain("bias", OptionKind::kPath, "bias as .npy (int32, one per column of C)"));
  } else {
    o.push_back(plain("x", OptionKind::kPath, "x as .npy (int8, one per column of A)"));
    o.push_back(plain("bias", OptionKind::kPath, "bias as .npy (int32, one per row of y)"));
  }
  o.push_back(
      plain("quant", OptionKind::kPath, "Quantization file (YAML): b_zero_point (x / B), the output stage"));
  return o;
}

}  // namespace

Kernel spmv_kernel() {
  Kernel k{"spmv",
           "Sparse int8 matrix × vector, y = requant(A·x + bias), A in a sparse_tensor encoding",
           sparse_options(false),
           "Write y as .npy",
           {{"rows", "40"}, {"cols", "30"}, {"nnz-per-row", "4"}},
           &make_spmv,
           "partition",
           /*tunable=*/true,
           /*plan_files=*/true};
  return k;
}

Kernel spmm_kernel() {
  Kernel k{"spmm",
           "Sparse int8 matrix × dense matrix, C = requant(A·B + bias), A in a sparse_tensor encoding",
           sparse_options(true),
           "Write C as .npy",
           {{"rows", "40"}, {"cols", "30"}, {"nnz-per-row", "4"}, {"n", "8"}},
           &make_spmm,
           "partition",
           /*tunable=*/true,
           /*plan_files=*/true};
  return k;
}

}  // namespace treesim::kernels
