// Setting fields of a machine file by path, on the YAML document before it is read, so that a
// value the machine cannot take gets the machine loader's own one-line error (used by sweeps).
#pragma once

#include <string>
#include <vector>

#include "sim/core/error.h"

namespace treesim::machine {

// A field path as machine-files.md names fields: `dram.bytes_per_cycle`, `pe.mac.latency_cycles`,
// `levels[PE].memory_bytes` (a level by name) or `levels[3].fanout` (by index), and a value in the
// file's own spelling (`32KiB`, `256`, `true`).
struct FieldSetting {
  std::string path;
  std::string value;
};

// Whether `path` names a machine field (its first key is a top-level key of a machine file) rather
// than something else, such as a kernel option.
bool is_machine_field_path(const std::string& path);

// The YAML text of `text` with every setting applied (a missing key is added; the loader then
// rejects it if it is no field). Errors, by setting path: a path that is not `key.key[SEL].key`,
// a selector naming no level or index, a step through something that is not a mapping or a list.
struct PatchResult {
  std::string yaml;
  core::Errors errors;
};
PatchResult patch_machine_yaml(const std::string& text, const std::vector<FieldSetting>& settings);

}  // namespace treesim::machine
