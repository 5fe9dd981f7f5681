// The PE array's compute operations: every PE works on its own LM (addresses were checked with
// the program). Each runs its PEs on the lane pool; where a PE can fail, the failure of the lowest
// PE is reported, whatever the threads did.
#include <cstring>
#include <exception>
#include <mutex>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/host/mac_kernel.h"
#include "models/pe_array.h"
#include "sim/numeric/ternary_lut.h"
#include "sim/numeric/vector_math.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::models {
namespace {

// PEs per thread below which a step's lanes stay on one thread.
constexpr std::uint64_t kGrain = 64;

// The lowest PE's error of a step run over several threads.
class FirstError {
 public:
  void add(std::uint64_t pe, std::string message) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!error_ || pe < error_->pe) error_ = LaneError{pe, std::move(message)};
  }
  std::optional<LaneError> take() { return std::move(error_); }

 private:
  std::mutex mutex_;
  std::optional<LaneError> error_;
};

// An 8-bit operand minus its zero point, widened into int16 (|q − Z| ≤ 255 fits). One loop per
// type, so that each vectorizes.
void widen(const std::uint8_t* src, std::uint64_t count, bool is_signed, std::int32_t zero,
           std::vector<std::int16_t>& out) {
  out.resize(count);
  const auto z = static_cast<std::int16_t>(zero);
  if (!is_signed) {
    for (std::uint64_t i = 0; i < count; ++i) out[i] = static_cast<std::int16_t>(src[i] - z);
  } else {
    const auto* s = reinterpret_cast<const std::int8_t*>(src);
    for (std::uint64_t i = 0; i < count; ++i) out[i] = static_cast<std::int16_t>(s[i] - z);
  }
}

}  // namespace

void PeArray::prepare(const program::Instr& instr, const program::PreparedInstr& prep) {
  if (shared_.empty()) return;
  const host::LmView pes = lms();
  std::visit(
      [&](const auto& op) {
        using T = std::decay_t<decltype(op)>;
        if constexpr (std::is_same_v<T, program::Load>) {
          // scatter() replaces or makes real what the load overwrites.
        } else if constexpr (std::is_same_v<T, program::Mac> || std::is_same_v<T, program::TernaryMac>) {
          // The MAC reads whole shared operands from their sources; C must be real.
          std::uint64_t b = 0;
          if constexpr (std::is_same_v<T, program::Mac>)
            b = op.b;
          else
            b = op.w;
          shared_.materialize(prep.writes, pes);
          shared_.materialize_partial(op.a, op.a + op.m * op.k * core::dtype_bytes(op.a_dtype), pes);
          shared_.materialize_partial(b, b + op.k * op.n, pes);
        } else if constexpr (std::is_same_v<T, program::DptDecode>) {
          // The decoder reads shared packed bytes from their source PE, and its weights are then
          // shared the same way (dpt_decode); every PE writes the whole output range.
          const std::uint64_t hi =
              op.dst + op.bytes * static_cast<std::uint64_t>(numeric::trits_per_byte(op.codec));
          if (op.dst < op.src + op.bytes && op.src < hi) {
            shared_.materialize(prep.reads, pes);
            shared_.materialize(prep.writes, pes);
          } else {
            shared_.materialize_partial(op.src, op.src + op.bytes, pes);
            shared_.overwrite(op.dst, hi, std::vector<bool>(count_, true), pes);
          }
        } else {
          shared_.materialize(prep.reads, pes);
          shared_.materialize(prep.writes, pes);
        }
      },
      instr);
}

void PeArray::mac(const host::MacShape& op) {
  if (mac_batch_) return keep(mac_batch_->run(op, lms(), shared_, *pool_));
  // No AVX2: operands widened to int16 and multiplied by the plain kernel. Replicated operands sit
  // in neighbouring PEs: a PE whose operand bytes equal the previous PE's reuses its widened copy.
  const std::uint64_t a_bytes = op.m * op.k, b_bytes = op.k * op.n;
  struct Scratch {
    std::vector<std::int16_t> a, b;
    std::vector<std::int32_t> c;
  };
  std::vector<Scratch> scratch(pool_->threads());
  on_lanes(count_, kGrain, [&](std::uint64_t first, std::uint64_t last, unsigned worker) {
    Scratch& s = scratch[worker];
    for (std::uint64_t p = first; p < last; ++p) {
      const bool same_a = p > first && std::memcmp(lm(p) + op.a, lm(p - 1) + op.a, a_bytes) == 0;
      const bool same_b = p > first && std::memcmp(lm(p) + op.b, lm(p - 1) + op.b, b_bytes) == 0;
      if (!same_a) widen(lm(p) + op.a, a_bytes, op.a_signed, op.a_zero, s.a);
      if (!same_b) widen(lm(p) + op.b, b_bytes, op.b_signed, op.b_zero, s.b);
      std::uint8_t* c = lm(p) + op.c;
      s.c.resize(op.m * op.n);
      if (op.accumulate) std::memcpy(s.c.data(), c, op.m * op.n * 4);
      host::mac_int16(s.a.data(), s.b.data(), s.c.data(), op.m, op.n, op.k, op.accumulate);
      std::memcpy(c, s.c.data(), op.m * op.n * 4);
    }
  });
}

std::optional<LaneError> PeArray::dpt_decode(const program::DptDecode& op) {
  static const numeric::TernaryLut kLuts[] = {{numeric::TernaryCodec::kDpt, true},
                                              {numeric::TernaryCodec::kBct, true},
                                              {numeric::TernaryCodec::kBase3, true}};
  const numeric::TernaryLut& lut = op.codec == numeric::TernaryCodec::kBct     ? kLuts[1]
                                   : op.codec == numeric::TernaryCodec::kBase3 ? kLuts[2]
                                                                               : kLuts[0];
  const std::uint64_t t = static_cast<std::uint64_t>(lut.trits_per_byte());
  const std::uint64_t dst_hi = op.dst + op.bytes * t;
  // A PE whose packed bytes are a shared replica decodes nothing: its weights are recorded as a
  // replica of its source PE's, which decodes them.
  const bool in_place = op.dst < op.src + op.bytes && op.src < dst_hi;
  std::vector<std::uint32_t> source(count_);
  bool replicas = false;
  for (std::uint64_t p = 0; p < count_; ++p) {
    source[p] = in_place || shared_.empty()
                    ? static_cast<std::uint32_t>(p)
                    : shared_.source(static_cast<std::uint32_t>(p), op.src, op.src + op.bytes);
    replicas = replicas || source[p] != p;
  }
  FirstError error;
  on_lanes(count_, kGrain, [&](std::uint64_t first, std::uint64_t last, unsigned) {
    std::vector<std::int8_t> out, rows;
    for (std::uint64_t p = first; p < last; ++p) {
      if (source[p] != p) continue;
      const std::uint8_t* src = lm(p) + op.src;
      if (op.codec != numeric::TernaryCodec::kDpt) {
        std::uint8_t slots[8];
        for (std::uint64_t i = 0; i < op.bytes; ++i)
          if (!numeric::decode_chunk(op.codec, src[i], slots)) {
            error.add(p, fmt::format("the byte at LM offset {} is not a {} code", op.src + i,
                                     numeric::to_string(op.codec)));
            break;
          }
      }
      out.resize(op.bytes * t);
      lut.decode(src, op.bytes, out.data());
      if (op.cols > 1) {
        // Byte (r, c)'s slot s is weight row t·r + s: transpose each byte row's slots.
        rows.resize(out.size());
        const std::uint64_t n = op.cols;
        for (std::uint64_t r = 0; r < op.bytes / n; ++r)
          for (std::uint64_t c = 0; c < n; ++c)
            for (std::uint64_t s = 0; s < t; ++s) rows[(t * r + s) * n + c] = out[(r * n + c) * t + s];
        out.swap(rows);
      }
      std::memcpy(lm(p) + op.dst, out.data(), out.size());
    }
  });
  if (replicas) shared_.add(op.dst, dst_hi, std::move(source));
  return error.take();
}

std::optional<LaneError> PeArray::requant(const program::Requant& op, const numeric::OutputStage* stage,
                                          const std::vector<bool>* dead) {
  const std::uint64_t count = op.rows * op.cols;
  // The stage's constants, worked out once when every PE has the same.
  const std::optional<numeric::RequantBlock> shared_block =
      stage ? std::optional<numeric::RequantBlock>(std::in_place, *stage, op.cols) : std::nullopt;
  FirstError error;
  on_lanes(count_, kGrain, [&](std::uint64_t first, std::uint64_t last, unsigned) {
    std::vector<std::uint8_t> inputs;
    for (std::uint64_t p = first; p < last; ++p) {
      if (dead && (*dead)[p]) continue;
      // The next PE's accumulators come into the cache while this PE's are requantized: the MACs
      // wrote them long ago, and a PE's LM lies pages away from its neighbour's.
      if (p + 1 < last)
        for (std::uint64_t at = 0; at < count * 4; at += 64)
          __builtin_prefetch(lm(p + 1) + op.src + at, 0, 3);
      std::optional<numeric::OutputStage> own;
      if (!stage) {
        // Per-channel parameters differ per PE: each PE's come from its own LM.
        std::vector<numeric::QuantizedMultiplier> qm(op.cols);
        for (std::uint64_t c = 0; c < op.cols; ++c) {
          std::memcpy(&qm[c].multiplier, lm(p) + op.multiplier_lm + 4 * c, 4);
          std::memcpy(&qm[c].shift, lm(p) + op.shift_lm + 4 * c, 4);
        }
        own = program::output_stage(op, qm);
        try {
          numeric::validate(*own, op.cols);
        } catch (const numeric::QuantError& e) {
          error.add(p, e.what());
          continue;
        }
      }
      const numeric::OutputStage& st = stage ? *stage : *own;
      const std::uint8_t* acc = lm(p) + op.src;
      const std::uint8_t* bias = op.has_bias ? lm(p) + op.bias : nullptr;
      // With a left shift every accumulator is checked against the multiply's contract, as `quant
      // mbqm` checks the same values.
      bool failed = false;
      for (std::size_t i = 0; st.shifts_left() && i < count && !failed; ++i) {
        std::uint32_t x, b = 0;
        std::memcpy(&x, acc + 4 * i, 4);
        if (bias) std::memcpy(&b, bias + 4 * (i % op.cols), 4);
        const auto biased = static_cast<std::int32_t>(x + b);
        const numeric::QuantizedMultiplier& m = st.multiplier_for(i % op.cols);
        if (auto why = numeric::mbqm_contract_violation(biased, m.multiplier, m.shift, st.rounding)) {
          error.add(p, fmt::format("accumulator [{}, {}] = {}: {}", i / op.cols, i % op.cols, biased, *why));
          failed = true;
        }
      }
      if (failed) continue;
      // Requantized straight from the LM, unless the output overwrites what it reads.
      const auto overlaps = [&](std::uint64_t at, std::uint64_t bytes) {
        return at < op.dst + count && op.dst < at + bytes;
      };
      if (overlaps(op.src, count * 4) || (bias && overlaps(op.bias, op.cols * 4))) {
        inputs.assign(acc, acc + count * 4);
        if (bias) inputs.insert(inputs.end(), bias, bias + op.cols * 4);
        acc = inputs.data();
        bias = bias ? inputs.data() + count * 4 : nullptr;
      }
      if (shared_block)
        shared_block->bytes(acc, bias, op.rows, lm(p) + op.dst);
      else
        numeric::RequantBlock(st, op.cols).bytes(acc, bias, op.rows, lm(p) + op.dst);
    }
  });
  return error.take();
}

void PeArray::vector(const program::Vector& op) {
  numeric::VectorShape shape;
  shape.op = op.op, shape.rows = op.rows, shape.cols = op.cols;
  shape.b_form = static_cast<int>(op.b_form), shape.imm = op.imm;
  on_lanes(count_, kGrain, [&](std::uint64_t first, std::uint64_t last, unsigned) {
    // LM addresses need not be 4-byte aligned: the values go through aligned buffers.
    std::vector<float> a(op.values()), b(op.b_values()), out(op.out_values());
    for (std::uint64_t p = first; p < last; ++p) {
      std::memcpy(a.data(), lm(p) + op.a, a.size() * 4);
      if (!b.empty()) std::memcpy(b.data(), lm(p) + op.b, b.size() * 4);
      numeric::apply_vector(shape, a.data(), b.data(), out.data());
      std::memcpy(lm(p) + op.dst, out.data(), out.size() * 4);
    }
  });
}

void PeArray::copy(const program::Copy& op) {
  on_lanes(count_, kGrain * 16, [&](std::uint64_t first, std::uint64_t last, unsigned) {
    for (std::uint64_t p = first; p < last; ++p) std::memmove(lm(p) + op.dst, lm(p) + op.src, op.bytes);
  });
}

// Every PE's rows×channels windows of `taps` consecutive int8/uint8 values at src (a windowed load's
// channel-major columns), each reduced by `reduce(codes, out)` into `width` bytes at dst.
template <typename Op, typename Reduce>
void PeArray::reduce_windows(const Op& op, std::size_t width, Reduce reduce) {
  const bool is_signed = op.dtype == core::DType::kInt8;
  on_lanes(count_, kGrain, [&](std::uint64_t first, std::uint64_t last, unsigned) {
    std::vector<int> codes(op.taps);
    for (std::uint64_t p = first; p < last; ++p) {
      const std::uint8_t* src = lm(p) + op.src;
      std::uint8_t* dst = lm(p) + op.dst;
      for (std::uint64_t v = 0; v < op.rows * op.channels; ++v) {
        const std::uint8_t* taps = src + v * op.taps;
        for (std::uint64_t t = 0; t < op.taps; ++t)
          codes[t] = is_signed ? static_cast<std::int8_t>(taps[t]) : taps[t];
        reduce(codes, dst + v * width);
      }
    }
  });
}

void PeArray::pool_max(const program::PoolMax& op) {
  reduce_windows(op, 1, [](const std::vector<int>& codes, std::uint8_t* out) {
    *out = static_cast<std::uint8_t>(*std::max_element(codes.begin(), codes.end()));
  });
}

void PeArray::pool_sum(const program::PoolSum& op) {
  reduce_windows(op, 4, [&op](const std::vector<int>& codes, std::uint8_t* out) {
    std::int32_t sum = 0;
    for (int c : codes) sum += c - op.zero;
    std::memcpy(out, &sum, 4);
  });
}

void PeArray::quant_add(const program::QuantAdd& op) {
  const numeric::AddStage& s = op.stage;
  const bool a_signed = s.a_dtype == core::DType::kInt8, b_signed = s.b_dtype == core::DType::kInt8;
  on_lanes(count_, kGrain, [&](std::uint64_t first, std::uint64_t last, unsigned) {
    for (std::uint64_t p = first; p < last; ++p) {
      const std::uint8_t *a = lm(p) + op.a, *b = lm(p) + op.b;
      std::uint8_t* dst = lm(p) + op.dst;
      for (std::uint64_t i = 0; i < op.count; ++i) {
        const std::int32_t x = a_signed ? static_cast<std::int8_t>(a[i]) : a[i];
        const std::int32_t y = b_signed ? static_cast<std::int8_t>(b[i]) : b[i];
        dst[i] = static_cast<std::uint8_t>(numeric::quantized_add(x, y, s));
      }
    }
  });
}

std::optional<LaneError> PeArray::sparse_mac(const program::SparseMac& op) {
  FirstError error;
  on_lanes(op.walkers(count_), 1, [&](std::uint64_t first, std::uint64_t last, unsigned) {
    std::vector<std::int32_t> c;
    for (std::uint64_t i = first; i < last; ++i) {
      const std::uint64_t p = op.pe_of(i);
      try {
        const sparse::SparseMatrix a = sparse::unpack_block(lm(p) + op.a, op.a_bytes, op.encoding);
        if (a.rows > op.c_rows || a.cols > op.b_rows)
          throw sparse::SparseError(fmt::format("its {}x{} block does not fit B's {} rows and C's {} rows",
                                                a.rows, a.cols, op.b_rows, op.c_rows));
        c.assign(op.c_rows * op.n, 0);
        if (op.accumulate && !c.empty()) std::memcpy(c.data(), lm(p) + op.c, c.size() * 4);
        const sparse::WalkWork w = sparse::multiply_block(
            a, reinterpret_cast<const std::int8_t*>(lm(p) + op.b), op.n, op.b_zero, c.data());
        if (!c.empty()) std::memcpy(lm(p) + op.c, c.data(), c.size() * 4);
        if (w.entries != op.entries[i] || w.segments != op.segments[i])
          error.add(p, fmt::format("its walk visits {} entries and {} segments; the instruction declares {} "
                                   "and {}",
                                   w.entries, w.segments, op.entries[i], op.segments[i]));
        else if (!op.visits.empty() && w.visits != op.visits_of(i))
          error.add(p,
                    fmt::format("its walk steps through {} coordinates (dense, compressed, singleton, n:m); "
                                "the instruction declares {}",
                                fmt::join(w.visits, ","), fmt::join(op.visits_of(i), ",")));
      } catch (const sparse::SparseError& e) {
        error.add(p, e.what());
      }
    }
  });
  return error.take();
}

}  // namespace treesim::models
