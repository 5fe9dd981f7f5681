#include "kernels/qgemm/verify.h"

#include <fmt/format.h>

namespace treesim::kernels {

report::VerifyResult compare_outputs(const std::vector<std::int32_t>& got,
                                     const std::vector<std::int32_t>& expected, std::uint64_t cols) {
  report::VerifyResult v;
  if (got.size() != expected.size()) {
    v.ok = false;
    v.mismatches = std::max(got.size(), expected.size());
    v.first_mismatch = fmt::format("{} elements, expected {}", got.size(), expected.size());
    return v;
  }
  for (std::uint64_t i = 0; i < got.size(); ++i) {
    if (got[i] == expected[i]) continue;
    if (v.mismatches++ == 0)
      v.first_mismatch =
          fmt::format("C[{},{}]: got {}, expected {}", i / cols, i % cols, got[i], expected[i]);
  }
  v.ok = v.mismatches == 0;
  return v;
}

}  // namespace treesim::kernels
