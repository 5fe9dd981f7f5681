// Output files are written whole or not at all: to a temporary beside the target, then renamed.
#pragma once

#include <string>
#include <string_view>

namespace treesim::io {

// Writes `content` to `path` atomically. Throws std::runtime_error naming the path on failure,
// leaving no partial file behind.
void write_file_atomically(const std::string& path, std::string_view content);

// Reads a whole file; throws std::runtime_error naming the path when it cannot be read.
std::string read_file(const std::string& path);

}  // namespace treesim::io
