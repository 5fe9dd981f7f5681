// The fast host kernels behind the PE's int8 MAC array: C (int32, m×n, row-major, unaligned) (+)=
// Σ_k (A − Za)(B − Zb) for 8-bit A (m×k) and B (k×n), row-major. The 8-bit codes multiply as they
// are — on AVX-512 VNNI with vpdpbusd (uint8 × int8 summed in int32, mac_vnni.cpp), on AVX2 with
// vpmaddwd over the same codes held as int16 (mac_avx2.cpp) — and the zero points are folded with
// row and column sums (Jacob et al. 2018, eq. 7):
//   Σ (a − Za)(b − Zb) = Σ a·b − Zb·Σ_k a − Za·Σ_k b + k·Za·Zb,
// every term modulo 2^32, which is exactly the wrapping int32 accumulator of the widened kernel.
// int8 A enters as uint8 a + 128 (Za + 128), uint8 B as int8 b − 128 (Zb − 128).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace treesim::host {

// One 8-bit operand in a PE's LM.
struct Int8Operand {
  const std::uint8_t* bytes = nullptr;
  bool is_signed = false;
  std::int32_t zero = 0;
};

// The zero points the kernel folds: Za' = Za + 128 for int8 A (it multiplies a + 128), Zb' =
// Zb − 128 for uint8 B (it multiplies b − 128).
inline std::int32_t folded_zero_a(const Int8Operand& a) { return a.zero + (a.is_signed ? 128 : 0); }
inline std::int32_t folded_zero_b(const Int8Operand& b) { return b.zero - (b.is_signed ? 0 : 128); }

// The instruction set a kernel runs on; packings are made for one.
enum class MacIsa { kAvx512Vnni, kAvx2 };

// B packed for its kernel (VNNI: 16 columns × 4 k int8 per 64 bytes; AVX2: 8 columns × 2 k int16
// per 32 bytes), with eq. 7's column term −Za'·Σ_k b'.
struct PackedB {
  std::vector<std::uint8_t> data;
  std::vector<std::uint32_t> col_fix;  // n values, then 16 zeros (masked tails read them)
  std::uint64_t k = 0, n = 0;
};

// A as rows (VNNI: uint8 padded to a multiple of 4; AVX2: int16 padded to a multiple of 2), with
// eq. 7's row term k·Za'·Zb' − Zb'·Σ_k a'. For a narrow C (narrow_c) A is packed as packed B is,
// rows for columns: per block of 16 rows and group of 4 k, row i's 4 values at 4i..4i+3 (VNNI), or
// per block of 8 rows and pair of k, row i's 2 int16 at 2i, 2i+1 (AVX2); the kernel then puts rows,
// not columns, in the vector lanes, which a narrow C would leave half empty, and the one stream it
// reads from A is its packing in order.
struct PackedA {
  std::vector<std::uint8_t> data;
  std::vector<std::uint32_t> row_fix;
  std::uint64_t m = 0, k = 0;
  bool by_row_quads = false;
};

// Whether a C of `n` columns runs on a narrow kernel, rows of A in the vector lanes (A packed by
// row quads: VNNI, N < 16; by row pairs: AVX2, N ≤ 8).
inline bool narrow_c(MacIsa isa, std::uint64_t n) { return isa == MacIsa::kAvx512Vnni ? n < 16 : n <= 8; }

// Whether this CPU runs the kernel for `isa` (AVX-512 F, BW, VL and VNNI; AVX2), and the fastest one
// it runs (none: callers use mac_int16).
bool mac_isa_available(MacIsa isa);
std::optional<MacIsa> fastest_mac_isa();

// `zb` and `za` are the other operand's folded zero point; `n` is the width of the C that A will
// be multiplied into (it picks A's packing).
void pack_a(MacIsa isa, const Int8Operand& a, std::uint64_t m, std::uint64_t k, std::uint64_t n,
            std::int32_t zb, PackedA& out);
void pack_b(MacIsa isa, const Int8Operand& b, std::uint64_t k, std::uint64_t n, std::int32_t za,
            PackedB& out);

// C (+)= Σ_k (A − Za)(B − Zb) over operands packed for `isa` (same k), C at `c` (m×n int32,
// unaligned).
void mac_packed(MacIsa isa, const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate);

// The kernels behind mac_packed (mac_vnni.cpp, mac_avx2.cpp).
void mac_vnni(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate);
// The VNNI packings (mac_vnni.cpp), of values flipped by `flip` (v ^ flip): B's, with its column
// sums Σ_k v as int8 added to `col_sums`; A's by row quads, with its row sums Σ_k v as uint8 in
// `row_sums`. `out` is zeroed and of the packed size.
void pack_b_vnni(const Int8Operand& b, std::uint64_t k, std::uint64_t n, std::uint8_t flip, std::uint8_t* out,
                 std::uint32_t* col_sums);
void pack_a_row_quads(const Int8Operand& a, std::uint64_t m, std::uint64_t k, std::uint8_t flip,
                      std::uint8_t* out, std::uint32_t* row_sums);
void mac_avx2(const PackedA& a, const PackedB& b, std::uint8_t* c, bool accumulate);

}  // namespace treesim::host
