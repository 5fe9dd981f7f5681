// "Did you mean": the known name closest to a misspelt one, for error messages.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace treesim::core {

// The number of single-character insertions, deletions, substitutions and swaps of neighbours that
// turn `a` into `b` (optimal string alignment distance).
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word` when it is close enough to be a slip (at most one edit in three
// characters, and at least one), the first of equals; none otherwise.
std::optional<std::string> closest(const std::string& word, const std::vector<std::string>& candidates);

// " (did you mean 'X'?)" for closest(word, candidates), or "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace treesim::core
