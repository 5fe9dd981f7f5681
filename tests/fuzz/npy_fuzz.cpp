// .npy bytes: every input either parses (and writes back to bytes that parse to the same array)
// or fails with NpyError; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "sim/io/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace io = treesim::io;
  try {
    const io::NpyArray a =
        io::parse_npy(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.npy");
    const io::NpyArray b = io::parse_npy(io::to_npy_bytes(a), "written");
    if (b.dtype != a.dtype || b.shape != a.shape || b.bytes != a.bytes) std::abort();
  } catch (const io::NpyError&) {
  }
  return 0;
}
