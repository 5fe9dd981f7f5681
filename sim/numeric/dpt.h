// DPT (Densely Packed Ternary): 5 trits in one byte, encoded and decoded with a few bit tests and
// muxes and no division or table (the design notes, dpt). Trits are unsigned 0..2; t0 is the least
// significant (value = Σ t_i·3^i). B1 = t0 + 3·t1, B2 = t2 + 3·t3, B3 = t4; a 2-trit block is large
// when it is 8 (trits 2,2), the 1-trit block when it is 2.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace treesim::numeric {

inline constexpr int kDptTritsPerByte = 5;
inline constexpr int kDptValues = 243;  // 3^5

using Trits5 = std::array<std::uint8_t, 5>;  // t0 (least significant) .. t4

// A trit or weight outside its range, or a byte that is not a code. `index` is the element index
// (for inputs being encoded) or the byte offset (for bytes being decoded).
class TernaryError : public std::runtime_error {
 public:
  TernaryError(const std::string& message, std::size_t index) : std::runtime_error(message), index_(index) {}
  std::size_t index() const { return index_; }

 private:
  std::size_t index_;
};

// Σ t_i·3^i and its inverse (@pre 0 <= value < 243).
int trits_value(const Trits5& t);
Trits5 value_trits(int value);
// "00022": most significant trit (t4) first, as the tables print them.
std::string trits_string(const Trits5& t);

// Encodes 5 trits. Throws TernaryError (index = trit position) for a trit above 2.
std::uint8_t dpt_encode(const Trits5& t);

// Decodes any byte, as the hardware does: the 13 unused codes decode to aliases of 80, 161 and 242.
Trits5 dpt_decode(std::uint8_t byte);

// The 13 bytes that no value encodes to: x7 = x3 = x1 = x0 = 1 and (x6 or x2 or x5·x4).
constexpr bool dpt_is_unused_code(std::uint8_t b) {
  return (b & 0x8B) == 0x8B && ((b & 0x40) || (b & 0x04) || (b & 0x30) == 0x30);
}

// The strict validation pass: the first unused code in `data`, as an error value with its offset.
struct DptBadByte {
  std::size_t offset;
  std::uint8_t byte;
};
std::optional<DptBadByte> find_unused_dpt_code(const std::uint8_t* data, std::size_t size);

// find_unused_dpt_code that throws: TernaryError "WHAT: byte 0xCB at offset 17 is not a DPT code
// (an unused code; the hardware would decode it as 0x8B)".
void validate_dpt(const std::uint8_t* data, std::size_t size, const std::string& what);

}  // namespace treesim::numeric
