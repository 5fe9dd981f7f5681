// Random layouts on small random machines, for property tests (CuTe style: check post-conditions
// over the whole small domain). Deterministic: a seed gives the same case.
#pragma once

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"
#include "tests/sim/layout/machines.h"

namespace treesim::layout::testing {

struct RandomCase {
  machine::MachineConfig machine;
  std::string text;
  std::vector<std::uint64_t> shape;
};

inline RandomCase random_case(unsigned seed) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RandomCase c;
  std::vector<std::uint64_t> fanouts;
  int levels = pick(2, 4);
  for (int i = 0; i < levels; ++i) fanouts.push_back(static_cast<std::uint64_t>(pick(1, 4)));
  std::uint64_t words = pick(0, 2) == 0 ? 2 : 1;
  c.machine = make_machine(fanouts, 4096, words, {"A", "B", "C", "P"});
  c.machine.levels.back().name = "P";

  const int rank = pick(1, 3);
  std::vector<std::vector<std::string>> axes(rank);
  std::vector<std::uint64_t> padded(rank, 1);
  std::vector<std::string> bcast;
  for (int lv = 0; lv < levels; ++lv) {
    const std::string& name = c.machine.levels[lv].name;
    std::uint64_t f = fanouts[lv];
    int what = pick(0, 4);
    if (what <= 2 && f > 1) {  // split an axis by a divisor > 1
      std::uint64_t s = f;
      if (f == 4 && pick(0, 1)) s = 2;
      int d = pick(0, rank - 1);
      axes[d].push_back(std::to_string(s) + "_" + name);
      padded[d] *= s;
    } else if (what == 3) {
      axes[pick(0, rank - 1)].push_back("1_" + name);  // pinned
    } else if (f > 1 && pick(0, 1)) {
      bcast.push_back(pick(0, 1) ? name : (std::to_string(f == 4 ? 2 : f) + "_" + name));
    }
  }
  bool lanes = words == 2 && pick(0, 1);
  if (lanes) {
    int d = pick(0, rank - 1);
    axes[d].push_back("2_W");
    padded[d] *= 2;
  }
  // Address sub-axes: one or two per axis, strides row-major over all of them, sometimes spread out.
  struct Addr {
    int axis;
    std::uint64_t size;
  };
  std::vector<Addr> addr;
  for (int d = 0; d < rank; ++d) {
    int n = pick(0, 2);
    if (axes[d].empty() && n == 0) n = 1;
    for (int k = 0; k < n; ++k) addr.push_back({d, static_cast<std::uint64_t>(pick(1, 3))});
  }
  std::shuffle(addr.begin(), addr.end(), rng);
  std::uint64_t stride = pick(0, 3) == 0 ? 2 : 1;  // 2: holes in the address range
  std::vector<std::uint64_t> strides(addr.size());
  for (std::size_t i = addr.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= addr[i].size;
  }
  for (std::size_t i = 0; i < addr.size(); ++i) {
    axes[addr[i].axis].push_back(std::to_string(addr[i].size) + ":" + std::to_string(strides[i]));
    padded[addr[i].axis] *= addr[i].size;
  }
  std::string text = "(";
  for (int d = 0; d < rank; ++d) {
    std::shuffle(axes[d].begin(), axes[d].end(), rng);
    text += d ? ", (" : "(";
    for (std::size_t k = 0; k < axes[d].size(); ++k) text += (k ? ", " : "") + axes[d][k];
    text += ")";
  }
  if (!bcast.empty()) {
    text += "; B@[";
    for (std::size_t i = 0; i < bcast.size(); ++i) text += (i ? ", " : "") + bcast[i];
    text += "]";
  }
  text += ")";
  // Sometimes pad: a logical shape smaller than the padded one.
  c.shape = padded;
  if (pick(0, 2) == 0) {
    std::string prefix = "(";
    for (int d = 0; d < rank; ++d) {
      c.shape[d] = static_cast<std::uint64_t>(pick(1, static_cast<int>(padded[d])));
      prefix += (d ? "," : "") + std::to_string(c.shape[d]);
    }
    text = prefix + ")/" + text;
  }
  c.text = text;
  return c;
}

// Every padded index of a shape, row-major.
inline std::vector<std::vector<std::uint64_t>> all_indices(const std::vector<std::uint64_t>& shape) {
  std::vector<std::vector<std::uint64_t>> out;
  std::uint64_t n = 1;
  for (auto s : shape) n *= s;
  for (std::uint64_t e = 0; e < n; ++e) {
    std::vector<std::uint64_t> idx(shape.size());
    std::uint64_t rest = e;
    for (std::size_t d = shape.size(); d-- > 0;) {
      idx[d] = rest % shape[d];
      rest /= shape[d];
    }
    out.push_back(idx);
  }
  return out;
}

}  // namespace treesim::layout::testing
