// Sparse encoding text: every input either parses (and prints back to text that parses to the
// same encoding) or fails with a SparseError. Anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "sim/sparse/encoding.h"
#include "sim/sparse/sparse_error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace sparse = treesim::sparse;
  sparse::Encoding e;
  try {
    e = sparse::parse_encoding(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const sparse::SparseError& err) {
    if (err.render().empty()) std::abort();
    return 0;
  }
  if (!(sparse::parse_encoding(sparse::print_encoding(e)) == e)) std::abort();
  return 0;
}
