// Echoing user input in a message: cut to a bounded length and with every byte that is not
// printable ASCII escaped, so one message stays one line whatever the input holds (a newline, a
// terminal escape, invalid UTF-8, a 100 MB line).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace treesim::core {

inline constexpr std::size_t kEchoLimit = 80;

// `text` with \n, \r, \t, \\ and other bytes outside 0x20..0x7E written as escapes (\xNN), cut
// after `limit` characters of the result with "..." appended (limit 0: no cut).
std::string echo(std::string_view text, std::size_t limit = kEchoLimit);

}  // namespace treesim::core
