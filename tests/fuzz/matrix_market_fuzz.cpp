// Matrix Market text: every input either reads (and stores in CSR and BSR, walking back to the
// same entries) or fails with a SparseError. Anything else is a bug.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>

#include "sim/sparse/matrix_file.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage.h"

namespace {

using Entries = std::map<std::pair<std::uint64_t, std::uint64_t>, double>;

// Duplicates add up in file order, as build() adds them; explicit zeros drop out (a block stores
// zeros that the file never named).
Entries by_position(const treesim::sparse::Coo& coo) {
  Entries out;
  for (const auto& t : coo.entries) out[{t.row, t.col}] += t.value;
  for (auto it = out.begin(); it != out.end();) it = it->second == 0 ? out.erase(it) : std::next(it);
  return out;
}

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sparse = treesim::sparse;
  sparse::MatrixFile f;
  try {
    f = sparse::read_matrix_market(std::string(reinterpret_cast<const char*>(data), size), "fuzz.mtx");
  } catch (const sparse::SparseError&) {
    return 0;
  }
  // What every command does first: the entries summed per position (memory by rows and columns,
  // which the reader holds to its entries).
  (void)sparse::sum_duplicates(f.coo);
  // Small matrices only: a header may declare 2^20 rows that a dense level would expand.
  if (f.coo.rows > 4096 || f.coo.cols > 4096) return 0;
  // Exact comparison, entry by entry: a sum over all values depends on the order of addition
  // (1e300 + 1 - 1e300), which storage changes.
  const Entries want = by_position(f.coo);
  for (const char* name : {"csr", "bsr2x2", "coo"}) {
    const sparse::SparseMatrix m = sparse::build(f.coo, sparse::parse_encoding(name));
    sparse::validate(m);
    const Entries got = by_position(sparse::stored_entries(m));
    if (got.size() != want.size()) std::abort();
    for (auto g = got.begin(), w = want.begin(); g != got.end(); ++g, ++w)
      if (g->first != w->first || !same(g->second, w->second)) std::abort();
  }
  return 0;
}
