#include "tools/format.h"

#include <fmt/format.h>

namespace treesim::tools {

std::string format_bytes(std::uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  if (v == static_cast<double>(static_cast<std::uint64_t>(v))) return fmt::format("{} {}", v, kUnits[u]);
  return fmt::format("{:.2f} {}", v, kUnits[u]);
}

std::string format_rate(double value, const std::string& unit) {
  static const char* kPrefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int p = 0;
  while (value >= 1000 && p < 6) {
    value /= 1000;
    ++p;
  }
  return fmt::format("{:.4g} {}{}", value, kPrefixes[p], unit);
}

}  // namespace treesim::tools
