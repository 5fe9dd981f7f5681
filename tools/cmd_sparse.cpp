// `treesim sparse`: sparse encodings and matrices from the command line: the named encodings, an
// encoding checked and printed as MLIR writes it, and a matrix file or storage file shown in an
// encoding (its arrays, nnz, density and storage bytes).
#include <fmt/format.h>

#include <iostream>

#include "sim/core/echo.h"
#include "sim/io/input_file.h"
#include "sim/sparse/encoding.h"
#include "sim/sparse/matrix_file.h"
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

}  // namespace

void add_sparse_command(CLI::App& app) {
  auto* sparse = app.add_subcommand("sparse", "Sparse matrices: encodings, matrix files, storage");
  sparse->require_subcommand(1);
  add_encodings(*sparse);
  add_encoding(*sparse);
  add_show(*sparse);
}

}  // namespace treesim::tools
