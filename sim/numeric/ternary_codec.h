// Trit streams in bytes: DPT and the baselines it is compared with (dpt.md "Other encodings").
// A stream of n trits takes ceil(n / trits_per_byte) bytes, cut into chunks in stream order; the
// caller carries n. Stream element i of a chunk is the chunk's slot i:
//   kDpt           5 per byte, slot i has weight 3^i, the DPT code of the value
//   kBct           4 per byte, 2 bits per trit: slot i in bits 2i+1..2i (81 valid bytes)
//   kBase3         5 per byte, byte = Σ slot_i·3^i (bytes 243..255 invalid)
//   kBase243PreDiv 5 per byte, slot 0 most significant: byte = floor((256·v + 255)/243), decoded
//                  without division as floor(243·byte/256) (13 alias bytes, none invalid)
// A short last chunk is padded with `pad_trit` in its missing (highest) slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/numeric/dpt.h"

namespace treesim::numeric {

enum class TernaryCodec { kDpt, kBct, kBase3, kBase243PreDiv };

const char* to_string(TernaryCodec c);  // "dpt", "bct", "base3", "base243_prediv"
int trits_per_byte(TernaryCodec c);     // 4 for kBct, 5 otherwise
std::size_t encoded_size(TernaryCodec c, std::size_t trits);

// One chunk: slots 0..trits_per_byte−1. @pre every slot is 0..2.
std::uint8_t encode_chunk(TernaryCodec c, const std::uint8_t* slots);
// Decodes one byte into trits_per_byte slots. Returns false, leaving `slots` unspecified, for a byte
// the codec rejects (kBct, kBase3); kDpt decodes unused codes as the hardware does.
bool decode_chunk(TernaryCodec c, std::uint8_t byte, std::uint8_t* slots);

// Encodes a stream of trits. Throws TernaryError (index = stream position) for a trit above 2.
std::vector<std::uint8_t> encode_trits(TernaryCodec c, const std::uint8_t* trits, std::size_t n,
                                       std::uint8_t pad_trit = 0);
// Decodes the first n trits from ceil(n / trits_per_byte) bytes (extra bytes are ignored). Throws
// TernaryError (index = byte offset) for too few bytes, a byte the codec rejects, or, with
// `strict`, an unused DPT code.
std::vector<std::uint8_t> decode_trits(TernaryCodec c, const std::uint8_t* bytes, std::size_t size,
                                       std::size_t n, bool strict = false);

}  // namespace treesim::numeric
