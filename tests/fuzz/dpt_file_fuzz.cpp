// .dpt bytes: every input either parses (writes back to the same bytes, and unpacks within the
// memory its shape allows, or refuses its padding with a TernaryError) or fails with DptFileError;
// anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/numeric/dpt.h"
#include "sim/numeric/dpt_file.h"
#include "sim/numeric/ternary_tensor.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace numeric = treesim::numeric;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const numeric::PackedTernary p = numeric::parse_dpt_file(bytes, "fuzz.dpt");
    if (numeric::to_dpt_file_bytes(p) != bytes) std::abort();
    try {
      (void)numeric::unpack_ternary(p, true);  // what dpt unpack and tgemm --w do next
    } catch (const numeric::TernaryError&) {   // a padding trit that is not 0: refused, as they do
    }
  } catch (const numeric::DptFileError&) {
  }
  return 0;
}
