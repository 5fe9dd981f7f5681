// Reading machine files (YAML). Every field is checked; unknown keys are rejected.
#pragma once

#include <stdexcept>
#include <string>

#include "sim/machine/machine_config.h"

namespace treesim::machine {

// A machine file that cannot be used. what() is the one-line message
// `FILE:LINE:COL: field 'levels[2].fanout': expected a positive integer, got 0` (1-based).
class MachineFileError : public std::runtime_error {
 public:
  // kUnknownField: a key that no machine file has (a misspelt field), whatever its value.
  enum class Kind { kValue, kUnknownField };
  MachineFileError(std::string file, int line, int column, std::string message, Kind kind = Kind::kValue);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  int column() const { return column_; }
  const std::string& message() const { return message_; }
  Kind kind() const { return kind_; }

 private:
  std::string file_;
  int line_;
  int column_;
  std::string message_;
  Kind kind_;
};

// Parses and validates YAML text; `file` is used in error messages only.
MachineConfig parse_machine_yaml(const std::string& text, const std::string& file);

// Reads and validates a machine file.
MachineConfig load_machine_file(const std::string& path);

// Parses a size: a non-negative integer with an optional suffix B, KiB, MiB, GiB or TiB
// (e.g. "64KiB"). Returns false when the text is not such a size.
bool parse_size(const std::string& text, std::uint64_t& bytes);

}  // namespace treesim::machine
