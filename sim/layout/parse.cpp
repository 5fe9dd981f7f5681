// A hand-written recursive-descent parser: the grammar is small and the errors need exact columns.
#include "sim/layout/parse.h"

#include <algorithm>
#include <cctype>

namespace treesim::layout {
namespace {

struct Failure {
  Diagnostic d;
};

class Parser {
 public:
  Parser(const std::string& text, const std::vector<std::string>& levels) : s_(text), levels_(levels) {}

  TensorLayout run() {
    TensorLayout l;
    l.source = s_;
    ws();
    std::size_t start = pos_;
    if (is_prefix_ahead()) {
      std::size_t p0 = pos_;
      l.logical_shape = prefix();
      l.prefix_span = {p0, pos_ - p0};
      ws();
    }
    body(l);
    ws();
    if (peek() == 'B') broadcast(l);  // the trailing `((…)) B@[…]` form of the Challenge pages
    ws();
    if (pos_ < s_.size()) {
      if (s_[pos_] == ')') fail("E002", "unbalanced ')' at column " + col(pos_), pos_, 1);
      fail("E006", "unexpected " + found() + " at column " + col(pos_) + " after the layout", pos_,
           s_.size() - pos_);
    }
    l.layout_span = {start, pos_ - start};
    while (l.layout_span.length > 0 &&
           std::isspace(static_cast<unsigned char>(s_[start + l.layout_span.length - 1])))
      --l.layout_span.length;
    return l;
  }

 private:
  [[noreturn]] void fail(const std::string& code, const std::string& msg, std::size_t at, std::size_t len) {
    Diagnostic d;
    d.code = code;
    d.message = msg;
    d.source = s_;
    d.column = at + 1;
    d.length = len == 0 ? 1 : len;
    throw Failure{d};
  }
  static std::string col(std::size_t at) { return std::to_string(at + 1); }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void ws() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  std::string found() const {
    if (pos_ >= s_.size()) return "end of input";
    return std::string("'") + s_[pos_] + "'";
  }
  // "expected X at column c, found Y"; running out of text inside parentheses is E002.
  // After an item of a list: takes a ',' and returns true (another item follows), or takes `close`
  // and returns false; anything else is an error.
  bool next_item(char close) {
    ws();
    if (peek() == ',') {
      ++pos_;
      return true;
    }
    if (peek() != close) expected(std::string("',' or '") + close + "'");
    ++pos_;
    return false;
  }

  [[noreturn]] void expected(const std::string& what, const std::string& code = "E001") {
    if (pos_ >= s_.size() && open_parens() > 0)
      fail("E002", "expected " + what + " at column " + col(pos_) + ", found end of input (unbalanced '(')",
           pos_, 1);
    fail(code, "expected " + what + " at column " + col(pos_) + ", found " + found(), pos_, 1);
  }
  long open_parens() const {
    return std::count(s_.begin(), s_.begin() + static_cast<long>(pos_), '(') -
           std::count(s_.begin(), s_.begin() + static_cast<long>(pos_), ')');
  }
  void expect(char c, const std::string& what) {
    ws();
    if (peek() != c) expected(what);
    ++pos_;
  }

  bool is_prefix_ahead() const {
    std::size_t p = pos_;
    if (p >= s_.size() || s_[p] != '(') return false;
    ++p;
    while (p < s_.size() && std::isspace(static_cast<unsigned char>(s_[p]))) ++p;
    if (p < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p]))) return true;
    if (p >= s_.size() || s_[p] != ')') return false;
    ++p;  // `()` is a prefix only when a `/` follows
    while (p < s_.size() && std::isspace(static_cast<unsigned char>(s_[p]))) ++p;
    return p < s_.size() && s_[p] == '/';
  }

  std::uint64_t uint(Span* span = nullptr) {
    ws();
    std::size_t start = pos_;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) expected("a number");
    std::uint64_t v = 0;
    bool overflow = false;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      v = v * 10 + static_cast<std::uint64_t>(s_[pos_++] - '0');
      if (v > kMaxValue) overflow = true;
      if (overflow) v = kMaxValue + 1;  // keep consuming digits; the value is rejected below
    }
    if (overflow) fail("E021", "value exceeds 2^62", start, pos_ - start);
    if (span) *span = {start, pos_ - start};
    return v;
  }

  std::vector<std::uint64_t> prefix() {
    expect('(', "'('");
    std::vector<std::uint64_t> shape;
    ws();
    while (peek() != ')') {
      Span sp;
      std::uint64_t v = uint(&sp);
      if (v == 0) fail("E020", "size must be ≥ 1 (logical extent 0)", sp.begin, sp.length);
      shape.push_back(v);
      ws();
      if (peek() == ',') {
        ++pos_;
        ws();
      } else if (peek() != ')') {
        expected("',' or ')'");
      }
    }
    ++pos_;
    expect('/', "'/' after the logical shape");
    return shape;
  }

  void body(TensorLayout& l) {
    ws();
    if (peek() != '(') expected("'('");
    ++pos_;
    ws();
    while (peek() == '(') {
      l.axes.push_back(axis_tuple(l));
      ws();
      if (peek() != ',') break;
      ++pos_;
      ws();
      if (peek() != '(' && peek() != ';' && peek() != ')') expected("'(' (an axis tuple)");
    }
    while (peek() == ';') {
      ++pos_;
      ws();
      broadcast(l);
      ws();
    }
    if (peek() != ')') {
      if (std::isdigit(static_cast<unsigned char>(peek())))
        expected("'(' (each tensor axis is a parenthesised tuple)");
      expected("',', ';' or ')'");
    }
    ++pos_;
  }

  std::vector<SubAxis> axis_tuple(TensorLayout& l) {
    std::size_t start = pos_;
    ++pos_;  // '('
    ws();
    if (peek() == ')')
      fail("E003", "empty axis tuple '()' at column " + col(start) + ": an axis needs at least one sub-axis",
           start, pos_ + 1 - start);
    std::vector<SubAxis> subs;
    for (;;) {
      subs.push_back(sub_axis());
      if (!next_item(')')) break;
    }
    l.axis_spans.push_back({start, pos_ - start});
    return subs;
  }

  // After '_': the raw name (letters and digits) and its span including the '_'.
  std::string suffix_name(std::size_t underscore) {
    ws();
    std::size_t start = pos_;
    while (std::isalnum(static_cast<unsigned char>(peek()))) ++pos_;
    if (pos_ == start) expected("a target suffix after '_'");
    (void)underscore;
    return s_.substr(start, pos_ - start);
  }

  std::string level_list() const {
    std::string out;
    for (const auto& n : levels_) out += n + ", ";
    return out;
  }

  SubAxis sub_axis() {
    ws();
    SubAxis s;
    std::size_t start = pos_;
    if (!std::isdigit(static_cast<unsigned char>(peek()))) {
      if (peek() == '_' || peek() == ':' || std::isalpha(static_cast<unsigned char>(peek())))
        expected("a sub-axis size", "E004");
      expected("a sub-axis size", "E004");
    }
    Span size_span;
    s.size = uint(&size_span);
    if (s.size == 0) fail("E020", "size must be ≥ 1", size_span.begin, size_span.length);
    ws();
    if (peek() == '_') {
      std::size_t us = pos_++;
      std::string name = suffix_name(us);
      if (name == "W") {
        s.target.kind = TargetKind::Lane;
      } else if (name == "Time") {
        s.target.kind = TargetKind::Time;
      } else if (std::find(levels_.begin(), levels_.end(), name) != levels_.end()) {
        s.target.kind = TargetKind::Level;
        s.target.level = name;
      } else {
        fail("E010", "unknown target suffix '_" + name + "' (expected " + level_list() + "W, Time)", us,
             pos_ - us);
      }
    }
    ws();
    if (peek() == ':') {
      std::size_t colon = pos_++;
      ws();
      if (!std::isdigit(static_cast<unsigned char>(peek())))
        fail("E005", "':' without a stride at column " + col(colon) + ", found " + found(), colon,
             pos_ - colon + 1);
      s.stride = uint();
      s.stride_written = true;
    }
    s.span = {start, pos_ - start};
    return s;
  }

  void broadcast(TensorLayout& l) {
    ws();
    std::size_t start = pos_;
    if (peek() != 'B') expected("an annotation 'B@[...]'");
    ++pos_;
    ws();
    if (peek() != '@') {
      pos_ = start;
      expected("an annotation 'B@[...]'");
    }
    ++pos_;
    expect('[', "'[' after 'B@'");
    for (;;) {
      ws();
      Broadcast b;
      std::size_t item = pos_;
      if (std::isdigit(static_cast<unsigned char>(peek()))) {
        Span sp;
        b.size = uint(&sp);
        if (b.size == 0) fail("E020", "size must be ≥ 1", sp.begin, sp.length);
        ws();
        if (peek() != '_') expected("'_' and a level name (broadcast items are LEVEL or N_LEVEL[:S])");
        ++pos_;
        b.level = bcast_level(item);
        ws();
        if (peek() == ':') {
          std::size_t colon = pos_++;
          ws();
          if (!std::isdigit(static_cast<unsigned char>(peek())))
            fail("E005", "':' without a stride at column " + col(colon) + ", found " + found(), colon,
                 pos_ - colon + 1);
          b.stride = uint();
          b.stride_written = true;
        }
      } else if (std::isalpha(static_cast<unsigned char>(peek()))) {
        b.whole_level = true;
        b.level = bcast_level(item);
        b.stride = 1;
      } else {
        expected("a level name or N_LEVEL in the broadcast list");
      }
      b.span = {item, pos_ - item};
      l.broadcasts.push_back(b);
      if (!next_item(']')) break;
    }
  }

  std::string bcast_level(std::size_t item) {
    ws();
    std::size_t start = pos_;
    while (std::isalnum(static_cast<unsigned char>(peek()))) ++pos_;
    if (pos_ == start) expected("a level name");
    std::string name = s_.substr(start, pos_ - start);
    if (std::find(levels_.begin(), levels_.end(), name) == levels_.end())
      fail("E010",
           "unknown level '" + name + "' in the broadcast list (expected " +
               level_list().substr(0, level_list().size() - 2) + ")",
           start, pos_ - start);
    (void)item;
    return name;
  }

  const std::string& s_;
  const std::vector<std::string>& levels_;
  std::size_t pos_ = 0;
};

}  // namespace

ParseResult parse_layout(const std::string& text, const std::vector<std::string>& level_names) {
  ParseResult r;
  try {
    TensorLayout l = Parser(text, level_names).run();
    if (auto err = resolve_strides(l, level_names)) {
      r.error = *err;
      return r;
    }
    // A prefix that pads nothing is not part of the value (it prints only when it pads).
    if (l.logical_shape && *l.logical_shape == l.padded_shape()) l.logical_shape.reset();
    r.layout = std::move(l);
  } catch (const Failure& f) {
    r.error = f.d;
  }
  return r;
}

std::vector<std::string> level_names(const machine::MachineConfig& machine) {
  std::vector<std::string> names;
  for (const auto& l : machine.levels) names.push_back(l.name);
  return names;
}

ParseResult parse_layout(const std::string& text, const machine::MachineConfig& machine) {
  return parse_layout(text, level_names(machine));
}

TensorLayout parse_layout_or_throw(const std::string& text, const machine::MachineConfig& machine) {
  ParseResult r = parse_layout(text, machine);
  if (!r) throw LayoutError(*r.error);
  return *r.layout;
}

}  // namespace treesim::layout
