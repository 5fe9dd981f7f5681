// .dpt bytes: every input either parses (and writes back to the same bytes) or fails with
// DptFileError; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/numeric/dpt_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace numeric = treesim::numeric;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    if (numeric::to_dpt_file_bytes(numeric::parse_dpt_file(bytes, "fuzz.dpt")) != bytes) std::abort();
  } catch (const numeric::DptFileError&) {
  }
  return 0;
}
