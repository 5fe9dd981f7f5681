// Errors as values: a check returns every problem it finds, each naming where it is (a file and
// line, a machine field path, an instruction index, a command-line option) and what was expected.
// Only the command line turns them into the one line a user sees and an exit status.
#pragma once

#include <string>
#include <vector>

namespace treesim::core {

struct Error {
  std::string where;  // "levels[2].fanout", "instruction 8 (store)", "--layout-a", "q.yaml:3:5"
  std::string what;   // "expected a positive integer, got 0"
  std::string message() const { return where.empty() ? what : where + ": " + what; }
  bool operator==(const Error& o) const { return where == o.where && what == o.what; }
};

using Errors = std::vector<Error>;

}  // namespace treesim::core
