#include "kernels/qgemm/verify.h"

#include <cstring>

#include "kernels/kernel.h"

namespace treesim::kernels {

report::VerifyResult compare_outputs(const std::vector<std::int32_t>& got,
                                     const std::vector<std::int32_t>& expected, std::uint64_t cols) {
  auto bytes = [](const std::vector<std::int32_t>& v) {
    std::vector<std::uint8_t> b(v.size() * 4);
    if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  const std::uint64_t rows = cols ? expected.size() / cols : 0;
  return compare_arrays({{"C", core::DType::kInt32, {rows, cols}, {}}}, {{"C", bytes(got)}},
                        {{"C", bytes(expected)}});
}

}  // namespace treesim::kernels
