// The bad-input table of bad_input_test.cpp: each case is a command line, the files it needs (written
// into a fresh folder per case) and the fragment its one-line message must contain.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace treesim::testing {

struct BadInput {
  std::string name;               // the test's name
  std::vector<std::string> args;  // "@D" is the case's folder, "@M" configs/mini.yaml
  std::vector<std::pair<std::string, std::string>> files;  // name in @D → contents
  std::string fragment;                                    // expected in the message ("@D" replaced as well)
  bool needs_non_root = false;                             // permission cases cannot fail for root
};

// Test names and failure output show the case's name, not its bytes.
inline void PrintTo(const BadInput& c, std::ostream* os) { *os << c.name; }

// A machine file: mini.yaml with `from` replaced by `to` (each pair in turn).
std::string mini_with(const std::vector<std::pair<std::string, std::string>>& edits);

std::vector<BadInput> machine_cases();
std::vector<BadInput> program_cases();
std::vector<BadInput> command_cases();
std::vector<BadInput> sparse_cases();
std::vector<BadInput> onnx_cases();

}  // namespace treesim::testing
