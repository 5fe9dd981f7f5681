// The host reference's raw product of 8-bit codes: C (int32, M×N) = A·B with A (M×K, uint8 or int8)
// and B (K×N, int8), row-major, exactly. It is the reference's own path, sharing no code with the
// simulator's MAC kernel: oneDNN's u8/s8×s8→s32 matmul where that is exact (CPUs with VNNI, whose
// vpdpbusd adds products without the int16 saturation of vpmaddubsw), else a plain loop. oneDNN is
// opened (dlopen) by the first product, so processes that never verify do not load it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace treesim::numeric {

// K must be at most kExactInt8MatmulMaxK, so that no sum of K products (|a·b| ≤ 255·128) leaves
// int32; callers split longer K.
inline constexpr std::size_t kExactInt8MatmulMaxK = 65536;

// Which path the product takes in this process (opening oneDNN if it is built in).
enum class ExactInt8MatmulPath { onednn, loop_without_onednn, loop_without_vnni };
ExactInt8MatmulPath exact_int8_matmul_path();
bool exact_int8_matmul_built_with_onednn();

void exact_int8_matmul(const std::uint8_t* a, bool a_signed, const std::int8_t* b, std::int32_t* c,
                       std::size_t m, std::size_t n, std::size_t k, std::size_t lda, std::size_t ldb);

}  // namespace treesim::numeric
