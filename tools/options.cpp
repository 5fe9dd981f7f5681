#include "tools/options.h"

#include <algorithm>
#include <cctype>

#include <sstream>

#include <fmt/format.h>

#include "sim/core/echo.h"
#include "sim/core/suggest.h"
#include "tools/cli.h"

namespace treesim::tools {
namespace {

// The value of an all-digit text, or nullopt when it has no digits, other characters or overflows.
std::optional<std::uint64_t> decimal(const std::string& text) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  std::uint64_t v = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return v;
}

std::string unsigned_expected(std::uint64_t lo, std::uint64_t hi) {
  if (hi == UINT64_MAX) return lo == 0 ? "a non-negative integer" : fmt::format("an integer >= {}", lo);
  return fmt::format("an integer in [{}, {}]", lo, hi);
}

std::optional<std::string> unsigned_problem(const std::string& text, std::uint64_t lo, std::uint64_t hi) {
  const auto v = decimal(text);
  if (v && *v >= lo && *v <= hi) return std::nullopt;
  return fmt::format("expected {}, got '{}'", unsigned_expected(lo, hi), core::echo(text));
}

// Any run of more than 20 digits (CLI11 prints DBL_MAX in full) becomes "…" so a message stays short.
std::string shorten_numbers(const std::string& text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    if (j - i > 20) {
      out += text.substr(i, 6) + "...(" + std::to_string(j - i) + " digits)";
      i = j;
    } else if (j > i) {
      out += text.substr(i, j - i);
      i = j;
    } else {
      out += text[i++];
    }
  }
  return out;
}

std::string subcommand_names(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands({})) names += (names.empty() ? "" : ", ") + sub->get_name();
  return names;
}

// The deepest subcommand that was given on the command line.
const CLI::App& active(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands({}))
    if (sub->parsed()) return active(*sub);
  return app;
}

// "layout show" for a subcommand, "" for treesim itself.
std::string command_path(const CLI::App& app) {
  std::string path;
  for (const CLI::App* a = &app; a && a->get_parent(); a = a->get_parent())
    path = a->get_name() + (path.empty() ? "" : " " + path);
  return path;
}

}  // namespace

CLI::Validator unsigned_in(std::uint64_t lo, std::uint64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) { return unsigned_problem(text, lo, hi).value_or(std::string()); },
      unsigned_expected(lo, hi));
}

CLI::Validator signed_in(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const bool negative = !text.empty() && text[0] == '-';
        const auto magnitude = decimal(negative ? text.substr(1) : text);
        if (magnitude) {
          const __int128 v =
              negative ? -static_cast<__int128>(*magnitude) : static_cast<__int128>(*magnitude);
          if (v >= lo && v <= hi) return std::string();
        }
        return fmt::format("expected an integer in [{}, {}], got '{}'", lo, hi, core::echo(text));
      },
      fmt::format("an integer in [{}, {}]", lo, hi));
}

std::uint64_t parse_unsigned(const std::string& text, const std::string& option, std::uint64_t lo,
                             std::uint64_t hi) {
  if (auto problem = unsigned_problem(text, lo, hi)) throw CliError(option + ": " + *problem);
  return *decimal(text);
}

std::vector<std::uint64_t> parse_unsigned_list(const std::string& text, const std::string& option,
                                               std::uint64_t lo, std::uint64_t hi) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string item =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto v = decimal(item);
    if (!v || *v < lo || *v > hi)
      throw CliError(fmt::format("{}: expected comma-separated {}s, got '{}'", option,
                                 unsigned_expected(lo, hi).substr(lo == 0 && hi == UINT64_MAX ? 2 : 3),
                                 core::echo(text)));
    out.push_back(*v);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::string format_parse_error(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App& cmd = active(app);
  const std::string path = command_path(cmd);
  const std::string where = path.empty() ? "command" : path;
  const std::string what = e.what();
  // An option given no value takes the next option as its value (CLI11 takes the next argument,
  // whatever it is): `--m --n 4` leaves '4' over, or fails to convert '--n'. Name the option that
  // has no value, whatever the error CLI11 found next.
  std::vector<std::string> known;
  for (const CLI::Option* o : cmd.get_options()) {
    for (const std::string& l : o->get_lnames()) known.push_back("--" + l);
    for (const std::string& s : o->get_snames()) known.push_back("-" + s);
  }
  for (const CLI::Option* o : cmd.get_options())
    for (const std::string& v : o->results())
      if (v.size() > 1 && v[0] == '-' &&
          std::find(known.begin(), known.end(), v.substr(0, v.find('='))) != known.end())
        return fmt::format("{}: expected a value, got the option '{}'", o->get_name(), core::echo(v));
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    // "The following argument was not expected: frobnicate" (one or more, space separated, the
    // last one first).
    const auto colon = what.find(": ");
    const std::string extras = colon == std::string::npos ? what : what.substr(colon + 2);
    std::vector<std::string> tokens;
    std::istringstream words(extras);
    for (std::string w; words >> w;) tokens.insert(tokens.begin(), w);
    // An option the command does not have: name it, and the one it is closest to.
    for (const std::string& t : tokens) {
      if (t.size() < 2 || t[0] != '-') continue;
      const std::string name = t.substr(0, t.find('='));
      return fmt::format("{}: unknown option '{}'{}", where, core::echo(name),
                         core::did_you_mean(name, known));
    }
    const std::string subs = subcommand_names(cmd);
    return fmt::format("{}: expected {}, got '{}'", where,
                       subs.empty() ? "only the options of 'treesim " + path + " --help'" : "one of " + subs,
                       core::echo(extras));
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) && what.find("subcommand") != std::string::npos) {
    // An unknown command is left over rather than reported as an extra: name it.
    const std::vector<std::string> left = cmd.remaining();
    return fmt::format("{}: expected one of {}, got {}", where, subcommand_names(cmd),
                       left.empty() ? "none" : "'" + core::echo(left.front()) + "'");
  }
  // CLI::Range's "--m: Value 1e400 not in range 0.000000 to 1797...(309 digits).000000".
  if (const auto value = what.find(": Value "), range = what.find(" not in range ");
      value != std::string::npos && range != std::string::npos && range > value) {
    const std::string bounds = what.substr(range + 14);
    const auto to = bounds.find(" to ");
    const auto number = [](const std::string& t) {
      try {
        return fmt::format("{:g}", std::stod(t));
      } catch (const std::exception&) {
        return core::echo(t, 24);
      }
    };
    return fmt::format("{}: expected a number from {} to {}, got '{}'", core::echo(what.substr(0, value)),
                       number(bounds.substr(0, to)),
                       to == std::string::npos ? "?" : number(bounds.substr(to + 4)),
                       core::echo(what.substr(value + 8, range - value - 8)));
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    // "--machine is required" → "--machine: expected a value, got none (the option is required)"
    const auto is = what.find(" is required");
    if (is != std::string::npos)
      return fmt::format("{}: expected a value, got none (the option is required)",
                         core::echo(what.substr(0, is)));
  }
  // Validation, conversion and argument-count errors already start with the option name.
  return core::echo(shorten_numbers(what), 200);
}

}  // namespace treesim::tools
