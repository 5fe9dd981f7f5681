// Matrix Market text: every input either reads (and stores in CSR and BSR, walking back to the
// same entries) or fails with a SparseError. Anything else is a bug.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/sparse/matrix_file.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sparse = treesim::sparse;
  sparse::MatrixFile f;
  try {
    f = sparse::read_matrix_market(std::string(reinterpret_cast<const char*>(data), size), "fuzz.mtx");
  } catch (const sparse::SparseError&) {
    return 0;
  }
  // Small matrices only: a header may declare 2^31 rows that a dense level would expand.
  if (f.coo.rows > 4096 || f.coo.cols > 4096) return 0;
  for (const char* name : {"csr", "bsr2x2", "coo"}) {
    const sparse::SparseMatrix m = sparse::build(f.coo, sparse::parse_encoding(name));
    sparse::validate(m);
    double sum_in = 0, sum_out = 0;
    for (const auto& t : f.coo.entries) sum_in += t.value;
    for (double v : m.values) sum_out += v;
    if (f.coo.entries.size() < 64 && sum_in == sum_in &&
        std::abs(sum_in - sum_out) > 1e-6 * (1 + std::abs(sum_in)))
      std::abort();
  }
  return 0;
}
