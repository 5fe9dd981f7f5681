// IDX bytes, plain or gzipped: every input either parses (to as many values as its shape gives) or
// fails with IdxError; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/io/idx.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace io = treesim::io;
  try {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    const io::IdxArray a = io::parse_idx(io::gunzip_if_gzipped(bytes, "fuzz.idx"), "fuzz.idx");
    std::uint64_t count = 1;
    for (std::uint64_t d : a.shape) count *= d;
    if (count != a.values.size()) std::abort();
  } catch (const io::IdxError&) {
  }
  return 0;
}
