// Lock-step PE instructions: every PE does its functional work and holds its unit for its own
// work; all PEs start when the last of their units is free, and the instruction ends when the
// slowest PE's result is ready (latency after its unit is released).
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "models/board.h"
#include "models/sequencer.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::models {

std::uint64_t Sequencer::unit_step(timing::Unit unit, const std::vector<std::uint64_t>& work,
                                   std::uint64_t ready, InstrRecord& r, std::uint64_t& start,
                                   timing::Path path) {
  const auto& pes = board_.pes();
  // Lock-step PEs mostly have equal work: its closed form is worked out once per run of equal work.
  std::uint64_t last_work = 0, last_busy = cost_.unit(unit, 0, path).busy;
  auto busy_of = [&](std::uint64_t w) {
    if (w != last_work) {
      last_work = w;
      last_busy = cost_.unit(unit, w, path).busy;
    }
    return last_busy;
  };
  std::uint64_t at = ready, longest = 0;
  for (std::size_t p = 0; p < pes.size(); ++p) {
    const std::uint64_t busy = busy_of(work[p]);
    if (busy == 0) continue;
    at = std::max(at, pes[p]->unit(unit).next_free());
    longest = std::max(longest, busy);
  }
  start = ready;
  if (longest == 0) return ready + cost_.unit(unit, 0, path).latency;
  // Equal work: every PE's hold is the same, so the trace records it once for the level.
  bool alike = true;
  for (std::size_t p = 1; p < pes.size() && alike; ++p) alike = work[p] == work[0];
  for (std::size_t p = 0; p < pes.size(); ++p) {
    const std::uint64_t busy = busy_of(work[p]);
    const Timeline::Trace how = !alike   ? Timeline::Trace::kOwn
                                : p == 0 ? Timeline::Trace::kLevel
                                         : Timeline::Trace::kNone;
    if (busy > 0) pes[p]->unit(unit).hold(at, busy, work[p], how);
  }
  r.busy.push_back({unit_resource(unit), longest});
  start = at;
  return at + longest + cost_.unit(unit, 0, path).latency;
}

void Sequencer::compute(std::size_t i, std::uint64_t ready, InstrRecord& r) {
  const auto& pes = board_.pes();
  const std::uint64_t n = pes.size();
  std::vector<std::uint64_t> work(n, 0);
  timing::Unit unit = timing::Unit::kMac;
  timing::Path path = timing::Path::kDefault;
  std::visit(
      [&](const auto& op) {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, program::Mac> || std::is_same_v<T, program::TernaryMac>) {
          const std::uint64_t a_bytes = op.m * op.k * core::dtype_bytes(op.a_dtype), b_bytes = op.k * op.n;
          std::uint64_t b_addr = 0;
          if constexpr (std::is_same_v<T, program::Mac>)
            b_addr = op.b;
          else
            b_addr = op.w;
          for (std::size_t p = 0; p < n; ++p) work[p] = op.m * op.n * op.k;
          if (functional_ && mac_batch_) {
            MacShape shape;
            shape.a = op.a, shape.b = b_addr, shape.c = op.c;
            shape.m = op.m, shape.n = op.n, shape.k = op.k;
            shape.a_signed = op.a_dtype == core::DType::kInt8, shape.a_zero = op.a_zero;
            if constexpr (std::is_same_v<T, program::Mac>)
              shape.b_signed = op.b_dtype == core::DType::kInt8, shape.b_zero = op.b_zero;
            shape.accumulate = op.accumulate;
            mac_batch_->run(shape, pes, shared_);
          }
          for (std::size_t p = 0; p < n && functional_ && !mac_batch_; ++p) {
            mac_scratch_.same_a =
                p > 0 && std::memcmp(pes[p]->lm() + op.a, pes[p - 1]->lm() + op.a, a_bytes) == 0;
            mac_scratch_.same_b =
                p > 0 && std::memcmp(pes[p]->lm() + b_addr, pes[p - 1]->lm() + b_addr, b_bytes) == 0;
            if constexpr (std::is_same_v<T, program::Mac>)
              pes[p]->mac(op, mac_scratch_);
            else
              pes[p]->ternary_mac(op, mac_scratch_);
          }
          r.macs = op.m * op.n * op.k * n;
          if constexpr (std::is_same_v<T, program::TernaryMac>) {
            path = timing::Path::kTernaryMac;
            r.ternary_macs = r.macs;
          }
        } else if constexpr (std::is_same_v<T, program::DptDecode>) {
          unit = timing::Unit::kDptDecoder;
          if (op.codec == numeric::TernaryCodec::kBase3) path = timing::Path::kBase3;
          // A PE whose packed bytes are a shared replica (unshare() left them so) decodes nothing: its
          // weights are recorded as a replica of its source PE's, which decodes them.
          const std::uint64_t dst_hi =
              op.dst + op.bytes * static_cast<std::uint64_t>(numeric::trits_per_byte(op.codec));
          const bool in_place = op.dst < op.src + op.bytes && op.src < dst_hi;
          std::vector<std::uint32_t> source(n);
          bool replicas = false;
          for (std::size_t p = 0; p < n; ++p) {
            work[p] = op.bytes;
            if (!functional_) continue;
            source[p] = in_place || shared_.empty()
                            ? static_cast<std::uint32_t>(p)
                            : shared_.source(static_cast<std::uint32_t>(p), op.src, op.src + op.bytes);
            if (source[p] != p) {
              replicas = true;
              continue;
            }
            if (auto bad = pes[p]->dpt_decode(op))
              fail(i, fmt::format("PE {}: the byte at LM offset {} is not a {} code", pes[p]->id(), *bad,
                                  numeric::to_string(op.codec)));
          }
          if (replicas) shared_.add(op.dst, dst_hi, std::move(source));
          r.dpt_bytes = op.bytes * n;
          if (path == timing::Path::kBase3) r.base3_bytes = r.dpt_bytes;
        } else if constexpr (std::is_same_v<T, program::Requant>) {
          unit = timing::Unit::kRequant;
          const auto& stage = checked_->instrs[i].stage;
          std::vector<std::int32_t> mult(op.cols), shift(op.cols);
          // A result no later instruction reads is not computed (dead_requant.h) where computing it
          // cannot fail either: parameters checked with the program, no left shift to overflow.
          const std::vector<bool>* dead =
              functional_ && stage && !stage->shifts_left() && !dead_requant_[i].empty() ? &dead_requant_[i]
                                                                                         : nullptr;
          for (std::size_t p = 0; p < n; ++p) {
            work[p] = op.rows * op.cols;
            if (!functional_ || (dead && (*dead)[p])) continue;
            if (stage) {
              try {
                pes[p]->requant(op, *stage);
              } catch (const numeric::QuantError& e) {
                fail(i, fmt::format("PE {}: {}", pes[p]->id(), e.what()));
              }
            } else {
              // Per-channel parameters differ per PE: each PE's come from its own LM.
              std::memcpy(mult.data(), pes[p]->lm() + op.multiplier_lm, op.cols * 4);
              std::memcpy(shift.data(), pes[p]->lm() + op.shift_lm, op.cols * 4);
              std::vector<numeric::QuantizedMultiplier> qm;
              for (std::uint64_t c = 0; c < op.cols; ++c) qm.push_back({mult[c], shift[c]});
              const numeric::OutputStage own = program::output_stage(op, qm);
              try {
                numeric::validate(own, op.cols);
              } catch (const numeric::QuantError& e) {
                fail(i, fmt::format("PE {}: {}", pes[p]->id(), e.what()));
              }
              try {
                pes[p]->requant(op, own);
              } catch (const numeric::QuantError& e) {
                fail(i, fmt::format("PE {}: {}", pes[p]->id(), e.what()));
              }
            }
          }
          r.requant_values = op.rows * op.cols * n;
        } else if constexpr (std::is_same_v<T, program::SparseMac>) {
          path = timing::Path::kSparse;
          for (std::size_t p = 0; p < n; ++p) {
            work[p] = cost_.sparse_items(op.entries[p], op.segments[p], op.n);
            r.macs += op.entries[p] * op.n;
            r.sparse_items += work[p];
            if (!functional_) continue;
            sparse::WalkWork w;
            try {
              w = pes[p]->sparse_mac(op);
            } catch (const sparse::SparseError& e) {
              fail(i, fmt::format("PE {}: {}", pes[p]->id(), e.what()));
            }
            if (w.entries != op.entries[p] || w.segments != op.segments[p])
              fail(i, fmt::format(
                          "PE {}: its walk visits {} entries and {} segments; the instruction declares {} "
                          "and {}",
                          pes[p]->id(), w.entries, w.segments, op.entries[p], op.segments[p]));
          }
          r.sparse_macs = r.macs;
        } else if constexpr (std::is_same_v<T, program::Copy>) {
          unit = timing::Unit::kCopy;
          for (std::size_t p = 0; p < n; ++p) {
            if (functional_) pes[p]->copy(op);
            work[p] = op.bytes;
          }
          r.copy_bytes = op.bytes * n;
        }
      },
      program_->instrs[i]);
  std::uint64_t start = ready;
  const std::uint64_t end = unit_step(unit, work, ready, r, start, path);
  r.timing = {start, end};
}

}  // namespace treesim::models
