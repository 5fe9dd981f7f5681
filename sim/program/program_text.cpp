#include "sim/program/program_text.h"
#include "sim/program/row_list.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/checked.h"
#include "sim/core/echo.h"
#include "sim/layout/parse.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::program {
namespace {

// The key=value fields of one line; every accessor records what it consumed so that unknown keys
// can be reported.
class Fields {
 public:
  Fields(std::string where, std::map<std::string, std::string> values)
      : where_(std::move(where)), values_(std::move(values)) {}

  [[noreturn]] void fail(const std::string& message) const { throw ProgramError(where_ + ": " + message); }

  bool has(const std::string& key) const { return values_.count(key) > 0; }

  const std::string& raw(const std::string& key) {
    used_.insert(key);
    auto it = values_.find(key);
    if (it == values_.end()) fail(fmt::format("field '{}' is missing", key));
    return it->second;
  }

  std::uint64_t u64(const std::string& key) {
    const std::string& s = raw(key);
    bool ok = !s.empty() && s.size() <= 19;
    for (char c : s) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    if (!ok) fail(fmt::format("field '{}': expected a non-negative integer, got '{}'", key, core::echo(s)));
    return std::stoull(s);
  }
  RowList rows(const std::string& key) {
    std::string error;
    auto v = parse_row_list(raw(key), error);
    if (!v) fail(fmt::format("field '{}': {}", key, error));
    return std::move(*v);
  }
  std::uint64_t u64_or(const std::string& key, std::uint64_t fallback) {
    return has(key) ? u64(key) : fallback;
  }

  std::int32_t i32(const std::string& key, const std::string& text) const {
    try {
      std::size_t used = 0;
      long long v = std::stoll(text, &used);
      if (used == text.size() && v >= INT32_MIN && v <= INT32_MAX) return static_cast<std::int32_t>(v);
    } catch (const std::logic_error&) {
    }
    fail(fmt::format("field '{}': expected a 32-bit integer, got '{}'", key, core::echo(text)));
  }
  std::int32_t i32(const std::string& key) { return i32(key, raw(key)); }
  std::int32_t i32_or(const std::string& key, std::int32_t fallback) {
    return has(key) ? i32(key) : fallback;
  }

  std::vector<std::int32_t> i32_list(const std::string& key) {
    std::vector<std::int32_t> out;
    std::stringstream ss(raw(key));
    std::string item;
    while (std::getline(ss, item, ',')) out.push_back(i32(key, item));
    if (out.empty()) fail(fmt::format("field '{}': expected a comma-separated list of integers", key));
    return out;
  }

  std::vector<std::uint64_t> indices(const std::string& key) {
    std::vector<std::uint64_t> out;
    std::stringstream ss(raw(key));
    std::string item;
    while (std::getline(ss, item, ',')) {
      bool ok = !item.empty() && item.size() <= 18;
      for (char c : item) ok = ok && std::isdigit(static_cast<unsigned char>(c));
      if (!ok)
        fail(fmt::format("field '{}': expected indices like 0,128, got '{}'", key,
                         core::echo(values_.at(key))));
      out.push_back(std::stoull(item));
    }
    if (out.empty()) fail(fmt::format("field '{}': expected indices like 0,128", key));
    return out;
  }

  std::vector<std::uint64_t> shape(const std::string& key) {
    std::vector<std::uint64_t> out;
    std::stringstream ss(raw(key));
    std::string item;
    while (std::getline(ss, item, ',')) {
      bool ok = !item.empty() && item.size() <= 19;
      for (char c : item) ok = ok && std::isdigit(static_cast<unsigned char>(c));
      if (!ok || std::stoull(item) == 0)
        fail(fmt::format("field '{}': expected positive sizes like 12,8, got '{}'", key,
                         core::echo(values_.at(key))));
      out.push_back(std::stoull(item));
    }
    if (out.empty()) fail(fmt::format("field '{}': expected positive sizes like 12,8", key));
    return out;
  }

  // A finite float32, as fmt prints one (its shortest text that reads back exactly).
  float f32_or(const std::string& key, float fallback) {
    if (!has(key)) return fallback;
    const std::string& s = raw(key);
    char* end = nullptr;
    const float v = s.empty() ? 0.0f : std::strtof(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !std::isfinite(v))
      fail(fmt::format("field '{}': expected a number, got '{}'", key, core::echo(s)));
    return v;
  }

  bool boolean_or(const std::string& key, bool fallback) {
    if (!has(key)) return fallback;
    const std::string& s = raw(key);
    if (s == "true" || s == "1") return true;
    if (s == "false" || s == "0") return false;
    fail(fmt::format("field '{}': expected true or false, got '{}'", key, core::echo(s)));
  }

  // An instruction's operand type; a tensor may also be float32 (the vector unit's values).
  DType dtype_or(const std::string& key, DType fallback, bool float32 = false) {
    if (!has(key)) return fallback;
    std::optional<DType> t = core::parse_dtype(raw(key));
    if (!t || (*t != DType::kInt8 && *t != DType::kUInt8 && *t != DType::kInt32 &&
               !(float32 && *t == DType::kFloat32)))
      fail(fmt::format("field '{}': expected int8, uint8, int32{}, got '{}'", key,
                       float32 ? " or float32" : "", core::echo(values_.at(key))));
    return *t;
  }

  layout::TensorLayout tensor_layout(const std::string& key, const std::vector<std::string>& level_names) {
    const std::string& s = text(key);
    layout::ParseResult r = layout::parse_layout(s, level_names);
    if (!r) {
      const layout::Diagnostic& d = *r.error;
      fail(fmt::format("field '{}': invalid layout \"{}\" at column {}: {}", key, core::echo(s), d.column,
                       core::echo(d.headline())));
    }
    return std::move(*r.layout);
  }

  Level level(const std::string& key, const std::vector<std::string>& level_names) {
    const std::string& s = text(key);
    if (s == "board") return Level{};
    for (std::size_t i = 0; i < level_names.size(); ++i)
      if (level_names[i] == s) return Level{static_cast<int>(i)};
    std::string names = "board";
    for (const auto& n : level_names) names += ", " + n;
    fail(
        fmt::format("field '{}': expected a level of the machine ({}), got '{}'", key, names, core::echo(s)));
  }

  numeric::TernaryCodec codec(const std::string& key) {
    const std::string& s = text(key);
    for (auto c : {numeric::TernaryCodec::kDpt, numeric::TernaryCodec::kBct, numeric::TernaryCodec::kBase3})
      if (s == numeric::to_string(c)) return c;
    fail(fmt::format("field '{}': expected dpt, bct or base3, got '{}'", key, core::echo(s)));
  }

  numeric::Rounding rounding(const std::string& key) {
    const std::string& s = text(key);
    std::optional<numeric::Rounding> r = numeric::parse_rounding(s);
    if (!r)
      fail(fmt::format("field '{}': expected double, single, double_upward or float, got '{}'", key,
                       core::echo(s)));
    return *r;
  }

  std::string text(const std::string& key) {
    const std::string& s = raw(key);
    if (s.empty()) fail(fmt::format("field '{}' is empty", key));
    return s;
  }

  void finish(const std::string& kind) const {
    for (const auto& [key, value] : values_)
      if (!used_.count(key))
        fail(fmt::format("unknown field '{}' for '{}'", core::echo(key), core::echo(kind)));
  }

 private:
  std::string where_;
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

// Splits `key=value key="quoted value"` into a map.
std::map<std::string, std::string> split_fields(const std::string& rest, const std::string& where) {
  std::map<std::string, std::string> out;
  std::size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && std::isspace(static_cast<unsigned char>(rest[i]))) ++i;
    if (i >= rest.size()) break;
    std::size_t eq = rest.find('=', i);
    std::size_t space = rest.find_first_of(" \t", i);
    if (eq == std::string::npos || (space != std::string::npos && space < eq))
      throw ProgramError(fmt::format(
          "{}: expected key=value, got '{}'", where,
          core::echo(rest.substr(i, space == std::string::npos ? std::string::npos : space - i))));
    std::string key = rest.substr(i, eq - i);
    i = eq + 1;
    std::string value;
    if (i < rest.size() && rest[i] == '"') {
      std::size_t close = rest.find('"', i + 1);
      if (close == std::string::npos)
        throw ProgramError(where + ": unterminated quote in field '" + core::echo(key) + "'");
      value = rest.substr(i + 1, close - i - 1);
      i = close + 1;
    } else {
      std::size_t end = rest.find_first_of(" \t", i);
      value = rest.substr(i, end == std::string::npos ? std::string::npos : end - i);
      i = end == std::string::npos ? rest.size() : end;
    }
    if (!out.emplace(key, value).second)
      throw ProgramError(where + ": field '" + core::echo(key) + "' given twice");
  }
  return out;
}

// Field 'window': r,s,stride_h,stride_w,dilation_h,dilation_w,pad_top,pad_left,out_h,out_w,c0,channels.
Window window_field(Fields& f) {
  const std::vector<std::uint64_t> v = f.indices("window");
  if (v.size() != 12)
    f.fail(
        fmt::format("field 'window': expected 12 numbers "
                    "(r,s,stride_h,stride_w,dilation_h,dilation_w,pad_top,pad_left,out_h,out_w,c0,"
                    "channels), got {}",
                    v.size()));
  return Window{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]};
}

Instr parse_instr(const std::string& kind, Fields& f, const std::vector<std::string>& levels) {
  if (kind == "load" || kind == "store") {
    std::string tensor = f.text("tensor");
    layout::TensorLayout layout = f.tensor_layout("layout", levels);
    std::uint64_t lm = f.u64_or("lm", 0);
    std::vector<std::uint64_t> offset, shape;
    if (f.has("offset")) offset = f.indices("offset");
    if (f.has("shape")) shape = f.shape("shape");
    if (offset.empty() != shape.empty())
      f.fail("fields 'offset' and 'shape' go together (a block of the tensor)");
    if (!offset.empty() && offset.size() != shape.size())
      f.fail(fmt::format("'offset' has {} entries but 'shape' has {}", offset.size(), shape.size()));
    if (kind == "load") {
      Load l{tensor, layout, lm, offset, shape, f.i32_or("pad", 0), std::nullopt, std::nullopt, {}, {}};
      if (f.has("window")) l.window = window_field(f);
      if (f.has("halo")) {
        if (!l.window) f.fail("field 'halo' needs a 'window' (it expands the windows at the PEs)");
        l.halo = f.u64("halo");
      }
      if (f.has("view")) l.view = f.shape("view");
      if (f.has("rows")) {
        if (l.window) f.fail("fields 'rows' and 'window' do not go together");
        l.rows = f.rows("rows");
      }
      return l;
    }
    return Store{tensor, layout, lm, offset, shape, f.has("rows") ? f.rows("rows") : RowList{}};
  }
  if (kind == "convert") {
    Convert c;
    c.tensor = f.text("tensor");
    c.from = f.tensor_layout("from", levels);
    c.to = f.tensor_layout("to", levels);
    c.src = f.u64("src"), c.dst = f.u64("dst");
    c.pad = f.i32_or("pad", 0);
    if (f.has("window")) {
      c.window = window_field(f);
      if (f.has("view")) c.view = f.shape("view");
      if (!f.has("offset") || !f.has("shape"))
        f.fail("a windowed convert needs 'offset' and 'shape' (the block of the window's matrix)");
      c.offset = f.indices("offset"), c.shape = f.shape("shape");
      if (c.offset.size() != 2 || c.shape.size() != 2)
        f.fail(
            "a windowed convert's 'offset' and 'shape' have 2 entries (rows and columns of the window's "
            "matrix)");
    } else if (f.has("view") || f.has("offset") || f.has("shape")) {
      f.fail("fields 'view', 'offset' and 'shape' of a convert need a 'window'");
    }
    return c;
  }
  if (kind == "mac") {
    Mac m;
    m.a = f.u64("a"), m.b = f.u64("b"), m.c = f.u64("c");
    m.m = f.u64("m"), m.n = f.u64("n"), m.k = f.u64("k");
    m.a_dtype = f.dtype_or("a_dtype", DType::kInt8);
    m.b_dtype = f.dtype_or("b_dtype", DType::kInt8);
    m.a_zero = f.i32_or("a_zero", 0);
    m.b_zero = f.i32_or("b_zero", 0);
    m.accumulate = f.boolean_or("acc", false);
    return m;
  }
  if (kind == "dpt_decode") {
    DptDecode d{f.u64("src"), f.u64("dst"), f.u64("bytes")};
    d.cols = f.u64_or("cols", 1);
    if (f.has("codec")) d.codec = f.codec("codec");
    return d;
  }
  if (kind == "ternary_mac") {
    TernaryMac m;
    m.a = f.u64("a"), m.w = f.u64("w"), m.c = f.u64("c");
    m.m = f.u64("m"), m.n = f.u64("n"), m.k = f.u64("k");
    m.a_dtype = f.dtype_or("a_dtype", DType::kInt8);
    m.a_zero = f.i32_or("a_zero", 0);
    m.accumulate = f.boolean_or("acc", false);
    return m;
  }
  if (kind == "requant") {
    Requant r;
    r.src = f.u64("src"), r.dst = f.u64("dst"), r.rows = f.u64("rows"), r.cols = f.u64("cols");
    if (f.has("bias")) {
      r.has_bias = true;
      r.bias = f.u64("bias");
    }
    if (f.has("multiplier_lm") || f.has("shift_lm")) {
      r.params_in_lm = true;
      r.multiplier_lm = f.u64("multiplier_lm");
      r.shift_lm = f.u64("shift_lm");
    } else {
      r.multiplier = f.i32_list("multiplier");
      r.shift = f.i32_list("shift");
    }
    r.out_zero = f.i32_or("out_zero", 0);
    r.out_dtype = f.dtype_or("out_dtype", DType::kInt8);
    std::int32_t lo = r.out_dtype == DType::kUInt8 ? 0 : -128;
    std::int32_t hi = r.out_dtype == DType::kUInt8 ? 255 : 127;
    r.act_min = f.i32_or("act_min", lo);
    r.act_max = f.i32_or("act_max", hi);
    if (f.has("rounding")) r.rounding = f.rounding("rounding");
    return r;
  }
  if (kind == "sparse_mac") {
    SparseMac s;
    try {
      s.encoding = sparse::parse_encoding(f.raw("encoding"));
    } catch (const sparse::SparseError& e) {
      f.fail(fmt::format("field 'encoding': {}", e.what()));
    }
    s.a = f.u64("a"), s.a_bytes = f.u64("a_bytes");
    s.b = f.u64("b"), s.b_rows = f.u64("b_rows"), s.n = f.u64_or("n", 1);
    s.b_zero = f.i32_or("b_zero", 0);
    s.c = f.u64("c"), s.c_rows = f.u64("c_rows");
    if (f.has("pes")) s.pes = f.indices("pes");
    s.entries = f.indices("entries");
    s.segments = f.indices("segments");
    if (f.has("visits")) s.visits = f.indices("visits");
    s.accumulate = f.boolean_or("acc", false);
    return s;
  }
  if (kind == "copy") return Copy{f.u64("src"), f.u64("dst"), f.u64("bytes")};
  if (kind == "pool_max")
    return PoolMax{f.u64("src"),      f.u64("dst"),  f.u64("rows"),
                   f.u64("channels"), f.u64("taps"), f.dtype_or("dtype", DType::kInt8)};
  if (kind == "pool_sum")
    return PoolSum{f.u64("src"),       f.u64("dst"),  f.u64("rows"),
                   f.u64("channels"),  f.u64("taps"), f.dtype_or("dtype", DType::kInt8),
                   f.i32_or("zero", 0)};
  if (kind == "add") {
    QuantAdd q{f.u64("a"), f.u64("b"), f.u64("dst"), f.u64("count"), {}};
    numeric::AddStage& st = q.stage;
    st.a_dtype = f.dtype_or("a_dtype", DType::kInt8), st.b_dtype = f.dtype_or("b_dtype", DType::kInt8);
    st.a_zero = f.i32_or("a_zero", 0), st.b_zero = f.i32_or("b_zero", 0);
    st.a_scale = f.f32_or("a_scale", 1), st.b_scale = f.f32_or("b_scale", 1);
    st.out_dtype = f.dtype_or("out_dtype", DType::kInt8), st.out_zero = f.i32_or("out_zero", 0);
    st.act_min = f.i32_or("act_min", static_cast<std::int32_t>(core::dtype_min(st.out_dtype)));
    st.act_max = f.i32_or("act_max", static_cast<std::int32_t>(core::dtype_max(st.out_dtype)));
    return q;
  }
  if (kind == "vector") {
    Vector v;
    const std::string name = f.raw("op");
    const std::optional<core::VectorOp> op = core::parse_vector_op(name);
    if (!op) {
      std::string names;
      for (std::size_t i = 0; i < core::kVectorOpCount; ++i)
        names += std::string(i ? ", " : "") + core::vector_op_name(static_cast<core::VectorOp>(i));
      f.fail(fmt::format("field 'op': unknown vector operation '{}' (expected one of: {})", core::echo(name),
                         names));
    }
    v.op = *op;
    v.a = f.u64("a"), v.dst = f.u64("dst"), v.rows = f.u64_or("rows", 1), v.cols = f.u64("cols");
    if (core::is_binary(v.op)) {
      if (f.has("imm") == f.has("b")) f.fail(fmt::format("vector op={} takes one of 'b' and 'imm'", name));
      if (f.has("imm")) {
        v.b_form = VectorOperand::kImmediate;
        v.imm = f.f32_or("imm", 0);
      } else {
        v.b = f.u64("b");
        const std::string per = f.has("b_per") ? f.raw("b_per") : "element";
        if (per == "row")
          v.b_form = VectorOperand::kPerRow;
        else if (per == "col")
          v.b_form = VectorOperand::kPerCol;
        else if (per != "element")
          f.fail(fmt::format("field 'b_per': expected element, row or col, got '{}'", core::echo(per)));
      }
    } else if (f.has("b") || f.has("imm") || f.has("b_per")) {
      f.fail(fmt::format("vector op={} reads one operand: no 'b', 'imm' or 'b_per'", name));
    }
    return v;
  }
  if (kind == "broadcast")
    return Broadcast{f.level("level", levels), f.u64("src"), f.u64("dst"), f.u64("bytes")};
  if (kind == "scatter") return Scatter{f.level("level", levels), f.u64("src"), f.u64("dst"), f.u64("bytes")};
  if (kind == "gather") return Gather{f.level("level", levels), f.u64("src"), f.u64("dst"), f.u64("bytes")};
  if (kind == "reduce") {
    Reduce r{f.level("level", levels), f.u64("src"), f.u64("dst"), f.u64("count")};
    if (f.has("op")) {
      const std::string op = f.raw("op");
      if (op != "sum" && op != "max") f.fail(fmt::format("field 'op': expected sum or max, got '{}'", core::echo(op)));
      r.op = op == "max" ? ReduceOp::kMax : ReduceOp::kSum;
    }
    if (f.has("dtype")) {
      const std::optional<DType> t = core::parse_dtype(f.raw("dtype"));
      if (t != DType::kInt32 && t != DType::kFloat32)
        f.fail(fmt::format("field 'dtype': expected int32 or float32, got '{}'", core::echo(f.raw("dtype"))));
      r.dtype = *t;
    }
    return r;
  }
  std::string names = "tensor";
  for (const auto& n : kind_names()) names += ", " + n;
  f.fail(fmt::format("unknown instruction '{}' (expected one of: {})", core::echo(kind), names));
}

}  // namespace

Program parse_program(const std::string& text, const std::string& file,
                      const std::vector<std::string>& level_names) {
  Program p;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF line ends are accepted
    // A '#' outside quotes starts a comment.
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '"') quoted = !quoted;
      if (line[i] == '#' && !quoted) {
        line.resize(i);
        break;
      }
    }
    std::size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos) continue;
    std::size_t end = line.find_first_of(" \t\r", start);
    std::string kind = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
    std::string rest = end == std::string::npos ? "" : line.substr(end);
    std::string where = fmt::format("{}:{}", core::echo(file, 0), number);
    if (kind == "tensor") {
      std::size_t name_start = rest.find_first_not_of(" \t");
      std::size_t name_end = rest.find_first_of(" \t", name_start);
      if (name_start == std::string::npos || rest.find('=', name_start) < name_end)
        throw ProgramError(where + ": 'tensor' needs a name: tensor NAME shape=12,8 dtype=int8");
      TensorDecl t;
      t.name = rest.substr(name_start, name_end - name_start);
      Fields f(where, split_fields(name_end == std::string::npos ? "" : rest.substr(name_end), where));
      t.shape = f.shape("shape");
      t.dtype = f.dtype_or("dtype", DType::kInt8, true);
      // Sizes are formed from these numbers everywhere; one that wraps 64 bits is refused here.
      const auto elements = core::checked_product(t.shape);
      if (!elements || !core::checked_mul(*elements, dtype_bytes(t.dtype)))
        f.fail(fmt::format("field 'shape': the tensor's size in bytes overflows 64 bits ({})",
                           core::echo(print_list(t.shape))));
      f.finish("tensor");
      if (p.find_tensor(t.name))
        throw ProgramError(fmt::format("{}: tensor '{}' declared twice", where, core::echo(t.name)));
      p.tensors.push_back(std::move(t));
      continue;
    }
    Fields f(where, split_fields(rest, where));
    Instr instr = parse_instr(kind, f, level_names);
    f.finish(kind);
    if (const auto* l = std::get_if<Load>(&instr); l && !p.find_tensor(l->tensor))
      f.fail(fmt::format("tensor '{}' is not declared (add: tensor {} shape=... dtype=...)",
                         core::echo(l->tensor), core::echo(l->tensor)));
    if (const auto* s = std::get_if<Store>(&instr); s && !p.find_tensor(s->tensor))
      f.fail(fmt::format("tensor '{}' is not declared (add: tensor {} shape=... dtype=...)",
                         core::echo(s->tensor), core::echo(s->tensor)));
    if (const auto* c = std::get_if<Convert>(&instr); c && !p.find_tensor(c->tensor))
      f.fail(fmt::format("tensor '{}' is not declared (add: tensor {} shape=... dtype=...)",
                         core::echo(c->tensor), core::echo(c->tensor)));
    p.instrs.push_back(std::move(instr));
  }
  return p;
}

}  // namespace treesim::program
