// Deterministic mutations of valid text for the parser robustness tests: a few characters replaced,
// inserted, deleted or duplicated, drawn from the grammar's alphabet (libFuzzer's moves, seeded).
#pragma once

#include <cstddef>
#include <random>
#include <string>

namespace treesim::testing {

inline std::string mutate_text(const std::string& seed, const std::string& alphabet, std::mt19937_64& gen) {
  std::string s = seed;
  const int edits = 1 + static_cast<int>(gen() % 4);
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = s.empty() ? 0 : gen() % (s.size() + 1);
    const char c = alphabet[gen() % alphabet.size()];
    switch (gen() % 4) {
      case 0:
        if (at < s.size()) s[at] = c;
        break;
      case 1:
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), c);
        break;
      case 2:
        if (at < s.size()) s.erase(at, 1 + gen() % 3);
        break;
      default:
        if (at < s.size()) s.insert(at, s.substr(at, 1 + gen() % 8));
    }
  }
  return s;
}

}  // namespace treesim::testing
