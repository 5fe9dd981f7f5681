// Checking option values and reporting command-line errors, one line each:
//   treesim: WHERE: what was expected, got what
// CLI11's own parse errors go through format_parse_error, so they read the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace treesim::tools {

// CLI11 validators that check the text before CLI11 converts it: a whole decimal integer in
// [lo, hi] (no sign for unsigned options, no hex, no overflow).
CLI::Validator unsigned_in(std::uint64_t lo, std::uint64_t hi = UINT64_MAX);
CLI::Validator signed_in(std::int64_t lo, std::int64_t hi);

// A whole decimal integer in [lo, hi], or a CliError "OPTION: expected ..., got 'TEXT'".
std::uint64_t parse_unsigned(const std::string& text, const std::string& option, std::uint64_t lo = 0,
                             std::uint64_t hi = UINT64_MAX);
// Comma-separated unsigned integers (each in [lo, hi]); an empty item or list is an error.
std::vector<std::uint64_t> parse_unsigned_list(const std::string& text, const std::string& option,
                                               std::uint64_t lo = 0, std::uint64_t hi = UINT64_MAX);

// The one line (without "treesim: ") for a CLI11 parse error of `app`.
std::string format_parse_error(const CLI::App& app, const CLI::ParseError& e);

}  // namespace treesim::tools
