// Storage as text: the dump of `treesim sparse show` (MLIR's sparse_tensor.print convention: nse,
// dim, lvl, pos[l], crd[l], values) and its JSON, which reads back as a storage file.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/sparse/storage.h"

namespace treesim::sparse {

// Values are stored as int8 in the simulator (the kernels quantize them): one byte each.
inline constexpr std::uint64_t kStoredValueBytes = 1;
// Storage files are read whole up to this size.
inline constexpr std::uint64_t kMaxStorageFileBytes = std::uint64_t{256} << 20;

// The dump; arrays longer than `limit` entries are cut with "... (N more)" (0 = no cut).
std::string storage_text(const SparseMatrix& m, std::size_t limit);
nlohmann::ordered_json storage_json(const SparseMatrix& m);
// A storage file (the JSON above): its encoding, shape and arrays, validated. Throws SparseError
// naming the file and the field ("a.json: levels[1].positions[3]: ...").
SparseMatrix read_storage_json(const std::string& text, const std::string& name);

}  // namespace treesim::sparse
