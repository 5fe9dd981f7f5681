// Candidates are written as text and parsed, so they carry source spans and canonical strides like
// any user-written layout.
#include "sim/layout/enumerate.h"

#include <set>
#include <string>

#include "sim/layout/bound_layout.h"
#include "sim/layout/parse.h"

namespace treesim::layout {
namespace {

struct Choice {
  enum Kind { Split, Pin, Omit } kind = Omit;
  std::size_t axis = 0;
  std::uint64_t factor = 1;
  bool outer = true;
};

struct Search {
  const std::vector<std::uint64_t>& shape;
  const machine::MachineConfig& machine;
  std::size_t element_bytes;
  const EnumerateOptions& options;
  std::vector<Choice> choices;
  std::vector<TensorLayout> out;
  std::set<std::string> seen;

  std::string text() const {
    const std::size_t rank = shape.size();
    std::vector<std::uint64_t> left = shape;
    for (const auto& c : choices)
      if (c.kind == Choice::Split) left[c.axis] /= c.factor;
    std::string s = "(";
    for (std::size_t d = 0; d < rank; ++d) {
      std::vector<std::string> subs;
      for (std::size_t lv = 0; lv < choices.size(); ++lv) {
        const auto& c = choices[lv];
        if (c.kind == Choice::Split && c.axis == d && c.outer)
          subs.push_back(std::to_string(c.factor) + "_" + machine.levels[lv].name);
        if (c.kind == Choice::Pin && d == 0) subs.push_back("1_" + machine.levels[lv].name);
      }
      if (left[d] > 1 || subs.empty()) subs.push_back(std::to_string(left[d]));
      for (std::size_t lv = 0; lv < choices.size(); ++lv) {
        const auto& c = choices[lv];
        if (c.kind == Choice::Split && c.axis == d && !c.outer)
          subs.push_back(std::to_string(c.factor) + "_" + machine.levels[lv].name);
      }
      s += d ? ", (" : "(";
      for (std::size_t k = 0; k < subs.size(); ++k) s += (k ? ", " : "") + subs[k];
      s += ")";
    }
    return s + ")";
  }

  void emit() {
    // A pinned level needs an axis to live on; a scalar has none.
    if (shape.empty())
      for (const auto& c : choices)
        if (c.kind == Choice::Pin) return;
    std::string t = text();
    if (!seen.insert(t).second) return;
    ParseResult p = parse_layout(t, machine);
    if (!p) return;
    if (!bind_layout(*p.layout, shape, machine, element_bytes)) return;
    out.push_back(std::move(*p.layout));
  }

  void run(std::size_t level, std::vector<std::uint64_t>& left) {
    if (out.size() >= options.limit) return;
    if (level == machine.levels.size()) {
      emit();
      return;
    }
    const std::uint64_t fanout = machine.levels[level].fanout;
    auto recurse = [&](Choice c) {
      choices.push_back(c);
      run(level + 1, left);
      choices.pop_back();
    };
    for (bool partial : {false, true}) {
      if (partial && !options.allow_partial) break;
      for (std::uint64_t f = fanout; f > 1; --f) {
        if (fanout % f != 0 || (f == fanout) == partial) continue;
        for (bool outer : {true, false})
          for (std::size_t d = 0; d < shape.size(); ++d) {
            if (left[d] % f != 0) continue;
            left[d] /= f;
            recurse({Choice::Split, d, f, outer});
            left[d] *= f;
            if (out.size() >= options.limit) return;
          }
      }
    }
    if (options.allow_pinned || fanout == 1) recurse({fanout == 1 ? Choice::Omit : Choice::Pin, 0, 1, true});
    if (options.allow_broadcast && fanout > 1) recurse({Choice::Omit, 0, 1, true});
  }
};

}  // namespace

std::vector<TensorLayout> enumerate_layouts(const std::vector<std::uint64_t>& shape,
                                            const machine::MachineConfig& machine, std::size_t element_bytes,
                                            const EnumerateOptions& options) {
  Search s{shape, machine, element_bytes, options, {}, {}, {}};
  std::vector<std::uint64_t> left = shape;
  s.run(0, left);
  return std::move(s.out);
}

}  // namespace treesim::layout
