// A processing element: its local memory (LM) and its four units — the int8 MAC array, the DPT
// decoder, the requant unit and the copy unit — each with its own busy timeline and counters. It
// has no process: the board's sequencer issues each lock-step instruction to every PE, which does
// the functional work on its LM and holds its unit for its own work (the closed form of the cost
// model), so PEs with more work finish later. Addresses were checked before the program ran.
#pragma once

#include <systemc>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "models/timeline.h"
#include "sim/numeric/requant.h"
#include "sim/program/instruction.h"
#include "sim/sparse/pe_block.h"
#include "sim/timing/cost_model.h"

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
  // `lm` points at the PE's `lm_bytes` in the board's LM arena (zero pages until first written).
  Pe(const sc_core::sc_module_name& name, std::uint64_t id, std::uint8_t* lm, std::uint64_t lm_bytes);
  Pe(const Pe&) = delete;
  Pe& operator=(const Pe&) = delete;

  std::uint64_t id() const { return id_; }
  std::uint64_t lm_bytes() const { return lm_bytes_; }
  std::uint8_t* lm() { return lm_; }
  const std::uint8_t* lm() const { return lm_; }

  Timeline& unit(timing::Unit u) { return units_[static_cast<std::size_t>(u)]; }
  const Timeline& unit(timing::Unit u) const { return units_[static_cast<std::size_t>(u)]; }

  // Functional work of the lock-step instructions on this PE's LM.
  void mac(const program::Mac& op, MacScratch& scratch);
  void ternary_mac(const program::TernaryMac& op, MacScratch& scratch);
  // The LM offset of the first byte the codec rejects (BCT, base 3), which then decodes as weight 0.
  std::optional<std::uint64_t> dpt_decode(const program::DptDecode& op);
  void requant(const program::Requant& op, const numeric::OutputStage& stage);
  void copy(const program::Copy& op);
  // Walks this PE's sparse block (C = A·(B − b_zero)); its work. Throws sparse::SparseError for a
  // block that is malformed or does not fit B and C.
  sparse::WalkWork sparse_mac(const program::SparseMac& op);

 private:
  const std::uint64_t id_;
  std::uint8_t* const lm_;
  const std::uint64_t lm_bytes_;
  std::array<Timeline, 4> units_;
};

}  // namespace treesim::models
