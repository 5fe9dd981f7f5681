// The PE array's transfers: a load's bytes into every replica's LM slots, a store's out of them,
// and the collectives between the PEs of each subtree.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "models/pe_array.h"
#include "sim/layout/slots.h"

namespace treesim::models {
namespace {

// Where the runs' elements point in `host`: the block itself (row-major), or with `tensor` the whole
// tensor the block lies in.
layout::ElementIndex element_index(const program::Block* tensor) {
  layout::ElementIndex index;
  if (!tensor || tensor->whole) return index;
  index.strides = tensor->tensor_strides;
  index.origin = tensor->full_index(0);
  return index;
}

// acc[c] = acc[c] ∘ part[c] over 4-byte values stored as bytes: an int32 sum wraps, a float32 sum
// rounds to nearest even, max takes the larger (fmaxf for float32: a NaN gives the other value).
template <typename T, typename Combine>
void combine(std::uint8_t* __restrict acc, const std::uint8_t* __restrict part, std::uint64_t count,
             Combine f) {
  for (std::uint64_t c = 0; c < count; ++c) {
    T x, y;
    std::memcpy(&x, acc + 4 * c, 4);
    std::memcpy(&y, part + 4 * c, 4);
    x = f(x, y);
    std::memcpy(acc + 4 * c, &x, 4);
  }
}

void reduce_into(const program::Reduce& op, std::uint8_t* acc, const std::uint8_t* part) {
  const bool sum = op.op == program::ReduceOp::kSum;
  if (op.dtype == core::DType::kFloat32) {
    if (sum)
      combine<float>(acc, part, op.count, [](float x, float y) { return x + y; });
    else
      combine<float>(acc, part, op.count, [](float x, float y) { return std::fmax(x, y); });
  } else if (sum) {
    combine<std::uint32_t>(acc, part, op.count, [](std::uint32_t x, std::uint32_t y) { return x + y; });
  } else {
    combine<std::int32_t>(acc, part, op.count, [](std::int32_t x, std::int32_t y) { return std::max(x, y); });
  }
}

}  // namespace

void PeArray::scatter(const program::Transfer& t, const std::uint8_t* host, std::uint64_t lm_base,
                      std::int32_t pad, const program::Block* tensor,
                      const std::vector<std::pair<std::uint64_t, std::uint64_t>>* gaps) {
  // Replicas are recorded as shared only where the MAC kernels read shared operands.
  host::LmReplicas* shared = mac_batch_ ? &shared_ : nullptr;
  const host::LmView pes = lms();
  const layout::BoundLayout& b = t.bound;
  const std::size_t eb = b.element_bytes();
  std::uint8_t pad_bytes[4];
  const std::uint32_t pad_bits = static_cast<std::uint32_t>(pad);
  for (int i = 0; i < 4; ++i) pad_bytes[i] = static_cast<std::uint8_t>(pad_bits >> (8 * i));
  const std::vector<std::uint64_t> shift = layout::replica_pe_offsets(b);
  if (shared && shared->overlaps(lm_base, lm_base + t.footprint_bytes)) {
    // Which PEs the load rewrites whole (replica 0's PEs that it fills densely, and their
    // replicas): what was shared in them need not be copied first.
    std::vector<std::uint64_t> fill(count_, 0);
    layout::for_each_run(b, [&](std::uint64_t pe, std::uint64_t, std::int64_t, std::uint64_t count) {
      fill[pe] += count * eb;
    });
    std::vector<bool> covered(count_, false);
    bool all_dense = true;
    for (std::uint64_t pe = 0; pe < count_; ++pe)
      all_dense = all_dense && !gaps && (fill[pe] == 0 || fill[pe] == t.footprint_bytes);
    for (std::uint64_t pe = 0; pe < count_ && all_dense; ++pe)
      for (std::uint64_t r = 0; r < shift.size() && fill[pe] > 0; ++r)
        covered[pe + shift[r] - shift[0]] = true;
    shared->overwrite(lm_base, lm_base + t.footprint_bytes, covered, pes);
  }
  if (gaps && b.replicas() == 1 && !(shared && shared->overlaps(lm_base, lm_base + t.footprint_bytes)) &&
      b.padded_elements() == b.logical_elements() && scatter_around_gaps(t, host, lm_base, *gaps))
    return;
  // Replica 0, run by run, in slices of the walk on the lane pool (the slices write disjoint
  // slots); remember which PEs it filled and how many bytes.
  const layout::ElementIndex index = element_index(tensor);
  std::vector<std::vector<std::uint64_t>> filled_by(pool_->threads(), std::vector<std::uint64_t>(count_, 0));
  walk_slices(b, [&](layout::OuterSlice slice, unsigned worker) {
    std::vector<std::uint64_t>& filled = filled_by[worker];
    layout::for_each_run(
        b,
        [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element, std::uint64_t count) {
          std::uint8_t* dst = lm(pe) + lm_base + offset;
          filled[pe] += count * eb;
          if (element < 0) {
            for (std::uint64_t i = 0; i < count; ++i) std::memcpy(dst + i * eb, pad_bytes, eb);
            return;
          }
          const std::uint64_t first = static_cast<std::uint64_t>(element);
          if (!gaps || gaps->empty()) {
            std::memcpy(dst, host + first * eb, count * eb);
            return;
          }
          // The run's parts outside the gaps (the first gap that ends past the run's start on).
          auto g = std::upper_bound(gaps->begin(), gaps->end(), first,
                                    [](std::uint64_t e, const auto& gap) { return e < gap.second; });
          for (std::uint64_t at = first, end = first + count; at < end;) {
            const std::uint64_t stop = g == gaps->end() ? end : std::min(end, g->first);
            if (at < stop) std::memcpy(dst + (at - first) * eb, host + at * eb, (stop - at) * eb);
            if (g == gaps->end()) break;
            at = std::max(at, g->second);
            ++g;
          }
        },
        index, slice);
  });
  std::vector<std::uint64_t> filled(count_, 0);
  for (const std::vector<std::uint64_t>& part : filled_by)
    for (std::uint64_t pe = 0; pe < part.size(); ++pe) filled[pe] += part[pe];
  if (b.replicas() == 1) return;
  // Every replica is replica 0 moved to other PEs at the same LM offsets. Where replica 0 fills its
  // PEs' footprints densely, copy footprints; otherwise copy slot by slot.
  bool dense = true;
  for (std::uint64_t pe = 0; pe < count_; ++pe)
    dense = dense && (filled[pe] == 0 || filled[pe] == t.footprint_bytes);
  if (dense && shared) {
    std::vector<std::uint32_t> source(count_);
    for (std::uint64_t pe = 0; pe < count_; ++pe) source[pe] = static_cast<std::uint32_t>(pe);
    for (std::uint64_t pe = 0; pe < count_; ++pe)
      for (std::uint64_t r = 1; r < shift.size() && filled[pe] > 0; ++r)
        source[pe + shift[r] - shift[0]] = static_cast<std::uint32_t>(pe);
    shared->add(lm_base, lm_base + t.footprint_bytes, std::move(source));
    return;
  }
  if (dense) {
    for (std::uint64_t pe = 0; pe < count_; ++pe) {
      if (filled[pe] == 0) continue;
      const std::uint8_t* src = lm(pe) + lm_base;
      for (std::uint64_t r = 1; r < shift.size(); ++r)
        std::memcpy(lm(pe + shift[r] - shift[0]) + lm_base, src, t.footprint_bytes);
    }
    return;
  }
  layout::for_each_run(b, [&](std::uint64_t pe, std::uint64_t offset, std::int64_t, std::uint64_t count) {
    const std::uint8_t* src = lm(pe) + lm_base + offset;
    for (std::uint64_t r = 1; r < shift.size(); ++r)
      std::memcpy(lm(pe + shift[r] - shift[0]) + lm_base + offset, src, count * eb);
  });
}

bool PeArray::scatter_around_gaps(const program::Transfer& t, const std::uint8_t* host, std::uint64_t lm_base,
                                  const std::vector<std::pair<std::uint64_t, std::uint64_t>>& gaps) {
  // A load that is mostly gaps (a pass in which few PEs take part): place the elements between the
  // gaps row by row, each row's first element located, rather than walk every slot of the layout.
  const layout::BoundLayout& b = t.bound;
  const std::uint64_t total = b.logical_elements(), cols = b.rank() == 2 ? b.shape()[1] : 0;
  std::uint64_t gap_elements = 0;
  for (const auto& [first, end] : gaps) gap_elements += end - first;
  if (cols == 0 || 8 * (total - gap_elements) > total) return false;
  const std::size_t eb = b.element_bytes();
  const std::uint64_t word = b.words_per_address() * eb;
  layout::Location at, last;
  std::uint64_t index[2];
  const auto slot = [&](const layout::Location& l) {
    return std::pair(b.pe_id(l.units), lm_base + l.addr * word + l.lane * eb);
  };
  // A slot is the sum of each axis's share (BoundLayout::target_values), so a row's elements lie
  // where its first does, moved by the columns' share alone: whether they are consecutive bytes of
  // one PE is the same for every row, found once from row 0.
  bool rows_contiguous = true;
  index[0] = 0, index[1] = 0;
  b.locate_into(index, at);
  const auto [pe0, offset0] = slot(at);
  for (std::uint64_t c = 1; c < cols && rows_contiguous; ++c) {
    index[1] = c;
    b.locate_into(index, last);
    const auto [pe, offset] = slot(last);
    rows_contiguous = pe == pe0 && offset == offset0 + c * eb;
  }
  const auto place = [&](std::uint64_t first, std::uint64_t end) {  // elements [first, end) of one row
    index[0] = first / cols, index[1] = first % cols;
    b.locate_into(index, at);
    if (rows_contiguous) {
      const auto [pe, offset] = slot(at);
      std::memcpy(lm(pe) + offset, host + first * eb, (end - first) * eb);
      return;
    }
    for (std::uint64_t e = first; e < end; ++e) {
      index[1] = e % cols;
      b.locate_into(index, at);
      const auto [p, o] = slot(at);
      std::memcpy(lm(p) + o, host + e * eb, eb);
    }
  };
  std::uint64_t from = 0;
  const auto place_rows = [&](std::uint64_t first, std::uint64_t end) {
    for (std::uint64_t e = first; e < end;) {
      const std::uint64_t row_end = std::min(end, (e / cols + 1) * cols);
      place(e, row_end);
      e = row_end;
    }
  };
  for (const auto& [first, end] : gaps) {
    place_rows(from, first);
    from = end;
  }
  place_rows(from, total);
  return true;
}

void PeArray::gather(const program::Transfer& t, std::uint64_t lm_base, std::uint8_t* host,
                     const program::Block* tensor) {
  const std::size_t eb = t.bound.element_bytes();
  const layout::ElementIndex index = element_index(tensor);
  // Slices of the walk read disjoint slots and write disjoint elements.
  walk_slices(t.bound, [&](layout::OuterSlice slice, unsigned) {
    layout::for_each_run(
        t.bound,
        [&](std::uint64_t pe, std::uint64_t offset, std::int64_t element, std::uint64_t count) {
          if (element < 0) return;
          std::memcpy(host + static_cast<std::uint64_t>(element) * eb, lm(pe) + lm_base + offset, count * eb);
        },
        index, slice);
  });
}

void PeArray::walk_slices(const layout::BoundLayout& b,
                          const std::function<void(layout::OuterSlice, unsigned)>& body) {
  // A small transfer stays on one thread: waking the others costs more.
  constexpr std::uint64_t kBytesPerThread = std::uint64_t{1} << 16;
  const std::uint64_t digits = layout::outer_digits(b);
  const std::uint64_t bytes = b.padded_elements() * b.element_bytes();
  on_lanes(digits, std::max<std::uint64_t>(1, digits * kBytesPerThread / std::max<std::uint64_t>(1, bytes)),
           [&](std::uint64_t lo, std::uint64_t hi, unsigned worker) {
             body({lo, hi}, worker);
           });
}

void PeArray::collective(const program::Instr& instr, std::uint64_t subtree) {
  const std::uint64_t s = subtree, subtrees = s == 0 ? 0 : count_ / s;
  // Every subtree works on its own PEs: the subtrees are the lanes.
  on_lanes(subtrees, 1, [&](std::uint64_t first_tree, std::uint64_t last_tree, unsigned) {
    std::vector<std::uint8_t> buffer;
    for (std::uint64_t tree = first_tree; tree < last_tree; ++tree) {
      const std::uint64_t first = tree * s;
      std::visit(
          [&](const auto& op) {
            using Op = std::decay_t<decltype(op)>;
            if constexpr (std::is_same_v<Op, program::Broadcast>) {
              buffer.assign(lm(first) + op.src, lm(first) + op.src + op.bytes);
              for (std::uint64_t j = 0; j < s; ++j)
                std::memcpy(lm(first + j) + op.dst, buffer.data(), op.bytes);
            } else if constexpr (std::is_same_v<Op, program::Scatter>) {
              buffer.assign(lm(first) + op.src, lm(first) + op.src + s * op.bytes);
              for (std::uint64_t j = 0; j < s; ++j)
                std::memcpy(lm(first + j) + op.dst, buffer.data() + j * op.bytes, op.bytes);
            } else if constexpr (std::is_same_v<Op, program::Gather>) {
              buffer.resize(s * op.bytes);
              for (std::uint64_t j = 0; j < s; ++j)
                std::memcpy(buffer.data() + j * op.bytes, lm(first + j) + op.src, op.bytes);
              std::memcpy(lm(first) + op.dst, buffer.data(), buffer.size());
            } else if constexpr (std::is_same_v<Op, program::Reduce>) {
              // Combined straight from the LMs in PE order, with the first PE's values as the start
              // (int32 wraps, as the adders do; a float32 sum is ((x0 + x1) + x2) + ...); the result
              // goes to dst only after every source is read, as src and dst may meet.
              buffer.assign(lm(first) + op.src, lm(first) + op.src + op.count * 4);
              for (std::uint64_t j = 1; j < s; ++j) reduce_into(op, buffer.data(), lm(first + j) + op.src);
              std::memcpy(lm(first) + op.dst, buffer.data(), op.count * 4);
            }
          },
          instr);
    }
  });
}

}  // namespace treesim::models
