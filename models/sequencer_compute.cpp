// Lock-step PE instructions: the PE array holds its units for every PE's work (all PEs start when
// the last of their units is free; the instruction ends when the slowest PE's result is ready) and
// does the functional work on every PE's LM.
#include <fmt/format.h>

#include "models/sequencer.h"

namespace treesim::models {

void Sequencer::compute(std::size_t i, std::uint64_t ready, InstrRecord& r) {
  const std::uint64_t n = machine_.pe_count();
  const bool functional = options_.functional;
  StepTime step;
  timing::Unit unit = timing::Unit::kMac;
  auto fail_on = [&](const std::optional<LaneError>& e) {
    if (e) fail(i, fmt::format("PE {}: {}", e->pe, e->message));
  };
  std::visit(
      [&](const auto& op) {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, program::Mac> || std::is_same_v<T, program::TernaryMac>) {
          const timing::Path path =
              std::is_same_v<T, program::TernaryMac> ? timing::Path::kTernaryMac : timing::Path::kDefault;
          step = pes->step(unit, op.m * op.n * op.k, ready, path);
          r.work.macs = op.m * op.n * op.k * n;
          r.work[std::is_same_v<T, program::TernaryMac> ? timing::Datapath::kTernaryMac
                                                        : timing::Datapath::kInt8Mac] = r.work.macs;
          if (functional) {
            host::MacShape shape;
            shape.c = op.c, shape.m = op.m, shape.n = op.n, shape.k = op.k;
            shape.a = op.a, shape.a_signed = op.a_dtype == core::DType::kInt8, shape.a_zero = op.a_zero;
            shape.accumulate = op.accumulate;
            if constexpr (std::is_same_v<T, program::Mac>) {
              shape.b = op.b, shape.b_signed = op.b_dtype == core::DType::kInt8, shape.b_zero = op.b_zero;
            } else {
              shape.b = op.w, shape.b_signed = true, shape.b_zero = 0;
            }
            pes->mac(shape);
          }
        } else if constexpr (std::is_same_v<T, program::DptDecode>) {
          unit = timing::Unit::kDptDecoder;
          const bool base3 = op.codec == numeric::TernaryCodec::kBase3;
          step = pes->step(unit, op.bytes, ready, base3 ? timing::Path::kBase3 : timing::Path::kDefault);
          r.work[base3 ? timing::Datapath::kBase3 : timing::Datapath::kDpt] = op.bytes * n;
          if (functional) fail_on(pes->dpt_decode(op));
        } else if constexpr (std::is_same_v<T, program::Requant>) {
          unit = timing::Unit::kRequant;
          step = pes->step(unit, op.rows * op.cols, ready);
          r.work[timing::Datapath::kRequant] = op.rows * op.cols * n;
          if (functional) {
            const auto& stage = checked_->instrs[i].stage;
            // A result no later instruction reads is not computed (models/host/dead_requant.h) where
            // computing it cannot fail either: parameters checked with the program, no left shift.
            const std::vector<bool>* dead =
                stage && !stage->shifts_left() && !dead_requant_[i].empty() ? &dead_requant_[i] : nullptr;
            fail_on(pes->requant(op, stage ? &*stage : nullptr, dead));
          }
        } else if constexpr (std::is_same_v<T, program::SparseMac>) {
          std::vector<std::uint64_t> work(n, 0);  // a PE that does not walk has none
          for (std::size_t i = 0; i < op.walkers(n); ++i) {
            const std::uint64_t items =
                cost_.sparse_items(op.entries[i], op.segments[i], op.visits_of(i), op.n);
            work[op.pe_of(i)] = items;
            r.work.macs += op.entries[i] * op.n;
            r.work[timing::Datapath::kSparseWalk] += items;
          }
          r.work.sparse_macs = r.work.macs;
          step = pes->step_each(unit, work, ready, timing::Path::kSparse);
          if (functional) fail_on(pes->sparse_mac(op));
        } else if constexpr (std::is_same_v<T, program::PoolMax>) {
          // The copy unit reads every tap's byte once.
          unit = timing::Unit::kCopy;
          const std::uint64_t bytes = op.rows * op.channels * op.taps;
          step = pes->step(unit, bytes, ready);
          r.work[timing::Datapath::kCopy] = bytes * n;
          if (functional) pes->pool_max(op);
        } else if constexpr (std::is_same_v<T, program::PoolSum>) {
          unit = timing::Unit::kCopy;  // as pool_max: every tap's byte read once
          const std::uint64_t bytes = op.rows * op.channels * op.taps;
          step = pes->step(unit, bytes, ready);
          r.work[timing::Datapath::kCopy] = bytes * n;
          if (functional) pes->pool_sum(op);
        } else if constexpr (std::is_same_v<T, program::QuantAdd>) {
          unit = timing::Unit::kRequant;  // one value a lane, as a requant
          step = pes->step(unit, op.count, ready);
          r.work[timing::Datapath::kRequant] = op.count * n;
          if (functional) pes->quant_add(op);
        } else if constexpr (std::is_same_v<T, program::Vector>) {
          unit = timing::Unit::kVector;
          const std::uint64_t items = cost_.vector_items(op.op, op.values());
          step = pes->step_time(unit, cost_.vector(op.op, op.values()), items, ready);
          r.work[timing::Datapath::kVector] = items * n;
          if (functional) pes->vector(op);
        } else if constexpr (std::is_same_v<T, program::Copy>) {
          unit = timing::Unit::kCopy;
          step = pes->step(unit, op.bytes, ready);
          r.work[timing::Datapath::kCopy] = op.bytes * n;
          if (functional) pes->copy(op);
        }
      },
      program_->instrs[i]);
  if (step.busy > 0) r.busy.push_back({timing::Resource::unit(unit), step.busy});
  r.timing = {step.start, step.end};
}

}  // namespace treesim::models
