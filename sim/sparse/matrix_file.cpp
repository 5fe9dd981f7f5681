#include "sim/sparse/matrix_file.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "sim/core/echo.h"
#include "sim/io/input_file.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::sparse {

std::string declared_size_error(std::uint64_t rows, std::uint64_t cols, std::uint64_t entries) {
  const std::uint64_t dim = std::max(rows, cols);
  if (dim > kMaxMatrixDim)
    return fmt::format("{}×{} is more than the {} rows or columns supported", rows, cols, kMaxMatrixDim);
  const std::uint64_t allowed = std::max(kDimAllowance, kDimsPerEntry * std::min(entries, kMaxMatrixEntries));
  if (dim > allowed)
    return fmt::format("{}×{} with {} entries: expected at most {} rows and columns (max({}, {} per entry))",
                       rows, cols, entries, allowed, kDimAllowance, kDimsPerEntry);
  return "";
}

MatrixFormat format_of(const std::string& path) {
  const auto dot = path.rfind('.');
  std::string ext =
      dot == std::string::npos || path.find('/', dot) != std::string::npos ? "" : path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == "mtx") return MatrixFormat::kMatrixMarket;
  if (ext == "graph" || ext == "mgraph") return MatrixFormat::kMetisGraph;
  if (ext.size() == 3 && (ext[0] == 'r' || ext[0] == 'p') &&
      std::string("usrz").find(ext[1]) != std::string::npos && ext[2] == 'a')
    return MatrixFormat::kHarwellBoeing;
  throw SparseError(
      core::echo(path) +
      ": expected a matrix file .mtx (Matrix Market), .rua/.rsa (Harwell-Boeing) or .graph (METIS)");
}

MatrixFile read_matrix_file(const std::string& path) {
  const MatrixFormat f = format_of(path);
  const std::string text = io::read_input_file(path, kMaxMatrixFileBytes, "matrix file");
  switch (f) {
    case MatrixFormat::kMatrixMarket:
      return read_matrix_market(text, path);
    case MatrixFormat::kHarwellBoeing:
      return read_harwell_boeing(text, path);
    case MatrixFormat::kMetisGraph:
      return read_metis_graph(text, path);
  }
  return {};
}

}  // namespace treesim::sparse
