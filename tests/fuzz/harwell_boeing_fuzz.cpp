// Harwell-Boeing text: every input either reads (its entries summed per position, as every command
// does first) or fails with a SparseError; a crash, a hang or memory sized by a header is a bug.
// Seeds: tests/data/sparse's Harwell-Boeing files (see tests/data/README.md).
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/sparse/matrix_file.h"
#include "sim/sparse/sparse_error.h"
#include "sim/sparse/storage.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sparse = treesim::sparse;
  try {
    sparse::MatrixFile f =
        sparse::read_harwell_boeing(std::string(reinterpret_cast<const char*>(data), size), "fuzz.rua");
    (void)sparse::sum_duplicates(std::move(f.coo));
  } catch (const sparse::SparseError&) {
  }
  return 0;
}
