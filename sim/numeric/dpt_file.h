// .dpt files: a packed ternary tensor (PackedTernary) with the metadata needed to unpack it.
// All integers little-endian:
//
//   offset  size    field
//   0       8       magic "TSIMDPT\n"
//   8       4       version, 1
//   12      4       ndim (1..32)
//   16      4       axis (< ndim): the packing axis
//   20      4       reserved, 0
//   24      8       trits per line (= shape[axis], stored again as a check)
//   32      8       payload bytes (= product of the packed shape)
//   40      8·ndim  shape of the unpacked tensor
//   40+8·ndim       payload: DPT codes in C order over the packed shape
//
// Reading checks every field and that the file ends with the payload, then runs the strict
// validation pass: an unused DPT code is an error with its payload offset.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "sim/numeric/ternary_tensor.h"

namespace treesim::numeric {

class DptFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string to_dpt_file_bytes(const PackedTernary& p);
// `name` (usually the path) starts every error message.
PackedTernary parse_dpt_file(std::string_view data, const std::string& name);

void write_dpt_file(const std::string& path, const PackedTernary& p);  // atomic: whole or absent
PackedTernary read_dpt_file(const std::string& path);

}  // namespace treesim::numeric
