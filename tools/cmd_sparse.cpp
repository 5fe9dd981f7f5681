// `treesim sparse`: sparse encodings and matrices from the command line: the named encodings, an
// encoding checked and printed as MLIR writes it, and a matrix file or storage file shown in an
// encoding (its arrays, nnz, density and storage bytes).
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <utility>

#include <nlohmann/json.hpp>

#include "kernels/spmv/spmv.h"
#include "sim/core/echo.h"
#include "sim/io/input_file.h"
#include "sim/sparse/encoding.h"
#include "sim/sparse/matrix_file.h"
#include "sim/sparse/partition.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage_text.h"
#include "tools/cli.h"

namespace treesim::tools {
namespace {

// An encoding option's text as one line: the caret's column stands in for the caret.
sparse::Encoding encoding_option(const std::string& text, const std::string& option) {
  try {
    return sparse::parse_encoding(text);
  } catch (const sparse::SparseError& e) {
    throw CliError(e.column() > 0 ? fmt::format("{}: {} (column {})", option, e.what(), e.column())
                                  : fmt::format("{}: {}", option, e.what()));
  }
}

bool is_json_file(const std::string& path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
}

sparse::SparseMatrix load(const std::string& file, const std::string& encoding_text, bool encoding_given) {
  try {
    if (is_json_file(file)) {
      sparse::SparseMatrix m = sparse::read_storage_json(
          io::read_input_file(file, sparse::kMaxStorageFileBytes, "storage file"), file);
      return encoding_given ? sparse::convert(m, encoding_option(encoding_text, "--encoding")) : m;
    }
    const sparse::Encoding e = encoding_option(encoding_text, "--encoding");
    const sparse::MatrixFile f = sparse::read_matrix_file(file);
    try {
      return sparse::build(f.coo, e);
    } catch (const sparse::SparseError& err) {
      throw CliError(fmt::format("{}: in {}: {}", core::echo(file), print_map(e), err.what()));
    }
  } catch (const io::InputFileError& e) {
    throw CliError(e.what());
  } catch (const sparse::SparseError& e) {
    throw CliError(e.what());
  }
}

void add_show(CLI::App& sparse) {
  auto* cmd = sparse.add_subcommand(
      "show",
      "Store a matrix file (.mtx, .rua/.rsa, .graph) or a storage file (.json) in an encoding and print it");
  auto file = std::make_shared<std::string>();
  auto encoding = std::make_shared<std::string>("csr");
  auto json = std::make_shared<bool>(false);
  auto all = std::make_shared<bool>(false);
  cmd->add_option("FILE", *file, "Matrix file, or a storage file written by --json")->required();
  CLI::Option* enc = cmd->add_option("--encoding", *encoding,
                                     "Encoding: MLIR's #sparse_tensor.encoding<{...}>, map = ..., or a name "
                                     "(csr, csc, coo, dcsr, dcsc, lcsr, bsrRxC, ellK, N:M)")
                         ->capture_default_str();
  cmd->add_flag("--json", *json, "Print the storage as JSON (a storage file that reads back)");
  cmd->add_flag("--all", *all, "Print every array entry (the text shows the first 16 of each)");
  cmd->callback([file, encoding, json, all, enc] {
    const sparse::SparseMatrix m = load(*file, *encoding, enc->count() > 0);
    emit(*json ? sparse::storage_json(m).dump() + "\n" : sparse::storage_text(m, *all ? 0 : 16));
  });
}

void add_encoding(CLI::App& sparse) {
  auto* cmd = sparse.add_subcommand("encoding", "Check an encoding and print it as MLIR writes it");
  auto text = std::make_shared<std::string>();
  cmd->add_option("ENCODING", *text, "The encoding or a name")->required();
  cmd->callback([text] {
    try {
      emit(sparse::print_encoding(sparse::parse_encoding(*text)) + "\n");
    } catch (const sparse::SparseError& e) {
      // The text with a caret under the token, then the usual one-line message.
      const std::string r = e.render();
      std::cerr << r.substr(0, r.size() - std::string(e.what()).size() - 1);
      throw CliError(e.what());
    }
  });
}

void add_encodings(CLI::App& sparse) {
  auto* cmd = sparse.add_subcommand("encodings", "List the named encodings and the maps they stand for");
  cmd->callback([] {
    std::string out;
    for (const auto& s : sparse::shortcuts()) out += fmt::format("{:<7} {}\n", s.name, s.text);
    emit(out);
  });
}

// The matrix as the kernels' loader takes it: one triple per (row, col) (duplicates summed), in
// --encoding; a storage file's nonzeros (its stored zeros are fill) in its own encoding unless
// --encoding is given.
std::pair<sparse::Coo, sparse::Encoding> partition_input(const std::string& file,
                                                         const std::string& encoding_text,
                                                         bool encoding_given) {
  try {
    if (is_json_file(file)) {
      const sparse::SparseMatrix m = sparse::read_storage_json(
          io::read_input_file(file, sparse::kMaxStorageFileBytes, "storage file"), file);
      sparse::Coo a = sparse::stored_entries(m);
      a.entries.erase(std::remove_if(a.entries.begin(), a.entries.end(),
                                     [](const sparse::Triple& t) { return t.value == 0; }),
                      a.entries.end());
      return {sparse::sum_duplicates(std::move(a)),
              encoding_given ? encoding_option(encoding_text, "--encoding") : m.encoding};
    }
    const sparse::Encoding e = encoding_option(encoding_text, "--encoding");
    return {sparse::sum_duplicates(sparse::read_matrix_file(file).coo), e};
  } catch (const io::InputFileError& e) {
    throw CliError(e.what());
  } catch (const sparse::SparseError& e) {
    throw CliError(e.what());
  }
}

struct PartitionFigures {
  sparse::PartitionStats entries;
  std::vector<std::uint64_t> rows, items;
  std::uint64_t grid_rows = 1, grid_cols = 1;
};

std::string partition_text(const PartitionFigures& f, sparse::Partition kind, std::uint64_t pes) {
  const sparse::PartitionStats& s = f.entries;
  std::string out = fmt::format("partition: {} over {} PEs", sparse::partition_name(kind), pes);
  if (kind == sparse::Partition::k2d) out += fmt::format(" (grid {} x {})", f.grid_rows, f.grid_cols);
  out += fmt::format("\nrows per PE: min {} max {}\n", *std::min_element(f.rows.begin(), f.rows.end()),
                     *std::max_element(f.rows.begin(), f.rows.end()));
  out += fmt::format("stored entries: {}; per PE min {} mean {:.2f} max {}\n", s.total, s.min, s.mean, s.max);
  out += fmt::format("imbalance (max/mean): {:.3f}; idle MAC slots (PEs x max - total): {}\n", s.imbalance,
                     s.idle_slots);
  out += fmt::format("walk items (entries + segments): per PE max {}\n",
                     *std::max_element(f.items.begin(), f.items.end()));
  return out;
}

void add_partition(CLI::App& sparse) {
  auto* cmd = sparse.add_subcommand(
      "partition",
      "Split a matrix over the PEs as the sparse kernels do (rows, nnz or 2d) and print the balance");
  auto file = std::make_shared<std::string>();
  auto encoding = std::make_shared<std::string>("csr");
  auto how = std::make_shared<std::string>("rows");
  auto machine = std::make_shared<std::string>();
  auto pes = std::make_shared<std::uint64_t>(0);
  auto json = std::make_shared<bool>(false);
  cmd->add_option("FILE", *file, "Matrix file, or a storage file written by `sparse show --json`")
      ->required();
  CLI::Option* enc =
      cmd->add_option("--encoding", *encoding, "Encoding (as for `sparse show`)")->capture_default_str();
  cmd->add_option("--partition", *how,
                  "rows (equal row ranges), nnz (balanced entries + rows) or 2d (grid of blocks)")
      ->capture_default_str();
  CLI::Option* m = cmd->add_option("--machine", *machine, "Machine file: split over its PEs and its 2d grid");
  CLI::Option* p = cmd->add_option(
      "--pes", *pes, "Split over this many PEs (1..1048576, 2d: the squarest grid) instead of a machine's");
  m->excludes(p);
  cmd->add_flag("--json", *json, "Print the figures and the per-PE counts as JSON");
  cmd->callback([=] {
    sparse::Partition kind = sparse::Partition::kRows;
    if (!sparse::parse_partition(*how, kind))
      throw CliError(fmt::format("--partition: expected rows, nnz or 2d, got '{}'", core::echo(*how)));
    if (m->count() == 0 && p->count() == 0)
      throw CliError("sparse partition: expected --machine FILE or --pes N");
    if (p->count() > 0 && (*pes == 0 || *pes > (std::uint64_t{1} << 20)))
      throw CliError(fmt::format("--pes: expected 1..1048576, got {}", *pes));
    PartitionFigures f;
    std::uint64_t n = *pes;
    if (m->count() > 0) {
      const machine::MachineConfig mc = load_machine_or_throw(*machine);
      n = mc.pe_count();
      f.grid_cols = kernels::sparse_grid_cols(mc);
    } else {
      f.grid_cols = sparse::squarest_grid_cols(n);
    }
    if (kind != sparse::Partition::k2d) f.grid_cols = 1;
    f.grid_rows = n / f.grid_cols;
    const auto [a, e] = partition_input(*file, *encoding, enc->count() > 0);
    std::vector<kernels::PeShare> shares;
    try {
      shares = kernels::split_shares(a, e, kind, n, f.grid_cols);
    } catch (const sparse::SparseError& err) {
      throw CliError(fmt::format("{}: in {}: {}", core::echo(*file), print_map(e), err.what()));
    }
    std::vector<std::uint64_t> entries;
    for (const kernels::PeShare& sh : shares) {
      entries.push_back(sh.work.entries);
      f.items.push_back(sh.work.items());
      f.rows.push_back(sh.row_end - sh.row_begin);
    }
    f.entries = sparse::partition_stats(std::move(entries));
    if (!*json) return emit(partition_text(f, kind, n));
    const sparse::PartitionStats& s = f.entries;
    nlohmann::ordered_json j;
    j["encoding"] = sparse::print_encoding(e);
    j["partition"] = sparse::partition_name(kind);
    j["pes"] = n;
    j["grid"] = {f.grid_rows, f.grid_cols};
    j["stored_entries"] = s.total;
    j["per_pe_min"] = s.min;
    j["per_pe_mean"] = s.mean;
    j["per_pe_max"] = s.max;
    j["imbalance"] = s.imbalance;
    j["idle_mac_slots"] = s.idle_slots;
    j["per_pe"] = s.per_pe;
    j["per_pe_rows"] = f.rows;
    j["per_pe_items"] = f.items;
    emit(j.dump() + "\n");
  });
}

}  // namespace

void add_sparse_command(CLI::App& app) {
  auto* sparse = app.add_subcommand("sparse", "Sparse matrices: encodings, matrix files, storage");
  sparse->require_subcommand(1);
  add_encodings(*sparse);
  add_encoding(*sparse);
  add_show(*sparse);
  add_partition(*sparse);
}

}  // namespace treesim::tools
