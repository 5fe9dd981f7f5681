// A processing element: its local memory (LM) and the functional work of its units (int8 MAC
// array, DPT decoder, requant unit, local copy). It has no process of its own: the board's driver
// runs every PE's share of a lock-step instruction and charges time by the machine file's closed
// forms. Addresses are LM byte offsets, checked by the executor before any PE runs.
#pragma once

#include <systemc>

#include <cstdint>
#include <vector>

#include "sim/numeric/requant.h"
#include "sim/program/instruction.h"

namespace treesim::models {

// Working memory for the host side of MAC instructions, reused across PEs. Replicated operands sit
// in neighbouring PEs: when a PE's operand bytes equal the previous PE's, its widened copy is
// reused (same_a / same_b).
struct MacScratch {
  std::vector<std::int16_t> a, b;
  std::vector<std::int32_t> c;
  bool same_a = false, same_b = false;
};

class Pe : public sc_core::sc_module {
 public:
  Pe(const sc_core::sc_module_name& name, std::uint64_t id, std::uint64_t lm_bytes);
  Pe(const Pe&) = delete;
  Pe& operator=(const Pe&) = delete;

  std::uint64_t id() const { return id_; }
  std::uint64_t lm_bytes() const { return lm_.size(); }
  std::uint8_t* lm() { return lm_.data(); }
  const std::uint8_t* lm() const { return lm_.data(); }
  // Zeroes the LM: the state right after construction.
  void reset();

  void mac(const program::Mac& op, MacScratch& scratch);
  void ternary_mac(const program::TernaryMac& op, MacScratch& scratch);
  void dpt_decode(const program::DptDecode& op);
  void requant(const program::Requant& op, const numeric::OutputStage& stage);
  void copy(const program::Copy& op);

 private:
  const std::uint64_t id_;
  std::vector<std::uint8_t> lm_;
};

}  // namespace treesim::models
