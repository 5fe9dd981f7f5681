// The encoding parser: a small tokenizer and a recursive descent over MLIR's grammar, then the
// checks of the map (which MLIR's verifier makes), each error with a caret under its token.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "sim/core/echo.h"
#include "sim/sparse/encoding.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::sparse {
namespace {

// Integers in an encoding are sizes and widths: anything past this is a typo, not a matrix.
constexpr std::uint64_t kMaxInteger = std::uint64_t{1} << 40;

struct Token {
  enum Kind { kIdent, kInt, kPunct, kEnd } kind;
  std::string text;
  std::size_t column;  // 1-based
  std::uint64_t value = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : src_(text) { tokenize(); }

  Encoding parse() {
    Encoding e;
    const Token& first = peek();
    if (first.kind == Token::kIdent && first.text == "#sparse_tensor.encoding") {
      next();
      expect("<");
      expect("{");
      fields(e);
      expect("}");
      expect(">");
    } else if (first.kind == Token::kPunct && (first.text == "(" || first.text == "[")) {
      map(e);  // the map alone
    } else {
      fields(e);
    }
    if (peek().kind != Token::kEnd)
      fail(peek(), "unexpected '" + core::echo(peek().text) + "' after the encoding");
    return e;
  }

  [[noreturn]] void fail(const Token& t, const std::string& what) const {
    throw SparseError("encoding: " + what, std::string(src_), t.column,
                      std::max<std::size_t>(t.text.size(), 1));
  }
  [[noreturn]] void fail_at(std::size_t column, std::size_t length, const std::string& what) const {
    throw SparseError("encoding: " + what, std::string(src_), column, length);
  }

  // The token range of level l's expression and of its type, for checks after parsing.
  std::vector<std::pair<Token, Token>> level_tokens;
  Token dims_token{Token::kEnd, "", 1};
  Token symbols_token{Token::kEnd, "", 1};

 private:
  std::string_view src_;
  std::vector<Token> tokens_;
  std::size_t at_ = 0;

  void tokenize() {
    std::size_t i = 0;
    while (i < src_.size()) {
      const char c = src_[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      const std::size_t start = i;
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '#') {
        ++i;
        while (i < src_.size() &&
               (std::isalnum(static_cast<unsigned char>(src_[i])) || src_[i] == '_' || src_[i] == '.'))
          ++i;
        tokens_.push_back({Token::kIdent, std::string(src_.substr(start, i - start)), start + 1});
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        std::uint64_t v = 0;
        bool big = false;
        while (i < src_.size() && std::isdigit(static_cast<unsigned char>(src_[i]))) {
          v = v * 10 + static_cast<std::uint64_t>(src_[i] - '0');
          big = big || v > kMaxInteger;
          if (big) v = kMaxInteger + 1;
          ++i;
        }
        Token t{Token::kInt, std::string(src_.substr(start, i - start)), start + 1, v};
        if (big)
          fail(t, fmt::format("expected an integer up to {}, got {}", kMaxInteger, core::echo(t.text)));
        tokens_.push_back(t);
      } else if (c == '-' && i + 1 < src_.size() && src_[i + 1] == '>') {
        tokens_.push_back({Token::kPunct, "->", start + 1});
        i += 2;
      } else if (std::string_view("()[]{}<>,:=*").find(c) != std::string_view::npos) {
        tokens_.push_back({Token::kPunct, std::string(1, c), start + 1});
        ++i;
      } else {
        fail({Token::kPunct, std::string(1, c), start + 1},
             "unexpected character '" + core::echo(std::string(1, c)) + "'");
      }
    }
    tokens_.push_back({Token::kEnd, "", src_.size() + 1});
  }

  const Token& peek() const { return tokens_[at_]; }
  const Token& next() { return tokens_[at_ < tokens_.size() - 1 ? at_++ : at_]; }
  bool accept(const std::string& punct) {
    if (peek().kind == Token::kPunct && peek().text == punct) {
      next();
      return true;
    }
    return false;
  }
  static std::string shown(const Token& t) {
    return t.kind == Token::kEnd ? "the end" : "'" + core::echo(t.text) + "'";
  }
  void expect(const std::string& punct) {
    if (!accept(punct)) fail(peek(), "expected '" + punct + "', got " + shown(peek()));
  }
  Token ident(const std::string& what) {
    if (peek().kind != Token::kIdent) fail(peek(), "expected " + what + ", got " + shown(peek()));
    return next();
  }
  Token integer(const std::string& what) {
    if (peek().kind != Token::kInt) fail(peek(), "expected " + what + ", got " + shown(peek()));
    return next();
  }

  void fields(Encoding& e) {
    bool have_map = false, have_pos = false, have_crd = false;
    do {
      const Token name = ident("a field (map, posWidth, crdWidth)");
      if (name.text != "map" && name.text != "posWidth" && name.text != "crdWidth")
        fail(name, "unknown field or encoding name '" + core::echo(name.text) +
                       "' (expected map, posWidth, crdWidth or a name such as csr)");
      expect("=");
      if (name.text == "map") {
        if (have_map) fail(name, "map is given twice");
        have_map = true;
        map(e);
      } else if (name.text == "posWidth" || name.text == "crdWidth") {
        bool& seen = name.text == "posWidth" ? have_pos : have_crd;
        if (seen) fail(name, name.text + " is given twice");
        seen = true;
        const Token w = integer(name.text + " (0, 8, 16, 32 or 64)");
        if (w.value != 0 && w.value != 8 && w.value != 16 && w.value != 32 && w.value != 64)
          fail(w, fmt::format("expected {} to be 0, 8, 16, 32 or 64, got {}", name.text, w.text));
        (name.text == "posWidth" ? e.pos_width : e.crd_width) = static_cast<int>(w.value);
      }
    } while (accept(","));
    if (!have_map) fail(peek(), "expected a map field (map = (i, j) -> (...))");
  }

  std::vector<std::string> names(std::vector<std::string> taken, const std::string& what,
                                 const std::string& close) {
    std::vector<std::string> out;
    do {
      const Token t = ident(what);
      for (const auto& n : taken)
        if (n == t.text) fail(t, "'" + core::echo(t.text) + "' is named twice");
      taken.push_back(t.text);
      out.push_back(t.text);
    } while (accept(","));
    expect(close);
    return out;
  }

  void map(Encoding& e) {
    if (peek().kind == Token::kPunct && peek().text == "[") {
      symbols_token = next();
      e.symbols = names({}, "a symbol name", "]");
    }
    dims_token = peek();
    expect("(");
    e.dims = names(e.symbols, "a dimension name", ")");
    if (e.dims.size() != 2)
      fail(dims_token, fmt::format("expected 2 dimensions (a matrix), got {}", e.dims.size()));
    expect("->");
    expect("(");
    do {
      const Token expr_start = peek();
      Level l;
      l.expr = expr(e);
      expect(":");
      const Token type_start = peek();
      l.type = level_type();
      level_tokens.emplace_back(expr_start, type_start);
      e.levels.push_back(l);
    } while (accept(","));
    expect(")");
  }

  std::optional<std::size_t> index_of(const std::vector<std::string>& v, const std::string& s) const {
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] == s) return i;
    return std::nullopt;
  }

  LevelExpr expr(const Encoding& e) {
    const Token t = ident("a level expression (a dimension, d floordiv k, d mod k)");
    LevelExpr x;
    if (index_of(e.symbols, t.text)) {  // ELL: c * K * d
      expect("*");
      x.k = integer("a slot count after '" + t.text + " *'").value;
      expect("*");
      x.op = ExprOp::kCount;
      const Token d = ident("a dimension name");
      const auto dim = index_of(e.dims, d.text);
      if (!dim) fail(d, "unknown dimension '" + core::echo(d.text) + "'");
      x.dim = *dim;
      if (x.k == 0) fail(t, "expected a positive slot count in the counting form");
      return x;
    }
    const auto dim = index_of(e.dims, t.text);
    if (!dim) fail(t, "unknown dimension '" + core::echo(t.text) + "'");
    x.dim = *dim;
    if (peek().kind == Token::kIdent && (peek().text == "floordiv" || peek().text == "mod")) {
      x.op = next().text == "floordiv" ? ExprOp::kFloorDiv : ExprOp::kMod;
      const Token k = integer("a divisor");
      if (k.value == 0) fail(k, "expected a positive divisor, got 0");
      x.k = k.value;
    }
    return x;
  }

  LevelType level_type() {
    const Token t = ident("a level type (dense, compressed, loose_compressed, singleton, blockN_M)");
    LevelType lt;
    const std::string& s = t.text;
    if (s == "dense") {
      lt.format = LevelFormat::kDense;
    } else if (s == "compressed") {
      lt.format = LevelFormat::kCompressed;
    } else if (s == "loose_compressed") {
      lt.format = LevelFormat::kLooseCompressed;
    } else if (s == "singleton") {
      lt.format = LevelFormat::kSingleton;
    } else if (s == "structured" || s == "n_out_of_m") {
      lt.format = LevelFormat::kNOutOfM;
      expect("[");
      lt.n = integer("n of n_out_of_m").value;
      expect(",");
      lt.m = integer("m of n_out_of_m").value;
      expect("]");
    } else if (s.rfind("block", 0) == 0 && s.find('_') != std::string::npos) {
      // block2_4: the older spelling of n_out_of_m.
      const std::string n = s.substr(5, s.find('_') - 5), m = s.substr(s.find('_') + 1);
      const auto digits = [](const std::string& d) {
        if (d.empty() || d.size() > 9) return false;
        for (char c : d)
          if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        return true;
      };
      if (!digits(n) || !digits(m))
        fail(t, "expected blockN_M with numbers N and M, got '" + core::echo(s) + "'");
      lt.format = LevelFormat::kNOutOfM;
      lt.n = std::stoull(n);
      lt.m = std::stoull(m);
    } else {
      fail(t,
           "unknown level type '" + core::echo(s) +
               "' (expected dense, compressed, loose_compressed, singleton, blockN_M or structured[n, m])");
    }
    if (lt.format == LevelFormat::kNOutOfM) {
      if (lt.n > lt.m) fail(t, fmt::format("expected n <= m in n_out_of_m, got {} > {}", lt.n, lt.m));
      if (lt.n == 0 || lt.m > 64)
        fail(t, fmt::format("expected 1 <= n <= m <= 64 in n_out_of_m, got {}:{}", lt.n, lt.m));
    }
    if (accept("(")) {
      do {
        const Token p = ident("a property (nonunique, nonordered)");
        if (p.text == "nonunique")
          lt.nonunique = true;
        else if (p.text == "nonordered")
          lt.nonordered = true;
        else
          fail(p, "unknown property '" + core::echo(p.text) + "' (expected nonunique or nonordered)");
        if (lt.format == LevelFormat::kDense || lt.format == LevelFormat::kNOutOfM)
          fail(p, "a " + std::string(lt.format == LevelFormat::kDense ? "dense" : "n_out_of_m") +
                      " level takes no properties");
      } while (accept(","));
      expect(")");
    }
    return lt;
  }
};

// MLIR's verifier rules for the map, checked after it parsed.
void check_map(const Encoding& e, const Parser& p) {
  const auto fail_level = [&](std::size_t l, bool at_type, const std::string& what) {
    const auto& [ex, ty] = p.level_tokens[l];
    const auto& t = at_type ? ty : ex;
    p.fail_at(t.column, t.text.size(), fmt::format("level {}: {}", l, what));
  };
  const std::size_t n = e.levels.size();
  if (e.is_ell()) {
    const bool shape =
        n == 3 && e.levels[0].expr.op == ExprOp::kCount && e.levels[1].expr.op == ExprOp::kPlain &&
        e.levels[1].expr.dim == e.levels[0].expr.dim && e.levels[2].expr.op == ExprOp::kPlain &&
        e.levels[2].expr.dim != e.levels[0].expr.dim && e.levels[0].type.format == LevelFormat::kDense &&
        e.levels[1].type.format == LevelFormat::kDense &&
        e.levels[2].type == LevelType{LevelFormat::kCompressed};
    if (!shape || e.symbols.size() != 1)
      p.fail_at(
          p.symbols_token.column, 1,
          "a map with a symbol is ELL's counting form and must read [c](i, j) -> (c * K * i : dense, i : "
          "dense, j : compressed)");
    return;
  }
  for (std::size_t l = 0; l < n; ++l)
    if (e.levels[l].expr.op == ExprOp::kCount)
      fail_level(l, false, "a counting expression needs a symbol ([c])");
  // Each dimension comes back from its levels: once plain, or as floordiv k and mod k.
  for (std::size_t d = 0; d < e.dims.size(); ++d) {
    std::size_t plain = 0, divs = 0, mods = 0, last = n;
    std::uint64_t div_k = 0, mod_k = 0;
    for (std::size_t l = 0; l < n; ++l) {
      if (e.levels[l].expr.dim != d) continue;
      last = l;
      const ExprOp op = e.levels[l].expr.op;
      if (op == ExprOp::kPlain) ++plain;
      if (op == ExprOp::kFloorDiv) ++divs, div_k = e.levels[l].expr.k;
      if (op == ExprOp::kMod) ++mods, mod_k = e.levels[l].expr.k;
    }
    const bool ok =
        (plain == 1 && divs == 0 && mods == 0) || (plain == 0 && divs == 1 && mods == 1 && div_k == mod_k);
    if (!ok) {
      const std::string what = fmt::format(
          "dimension '{}' cannot be recovered from the levels (expected it once, or as {} floordiv k and {} "
          "mod k)",
          core::echo(e.dims[d]), core::echo(e.dims[d]), core::echo(e.dims[d]));
      if (last == n) p.fail_at(p.dims_token.column, 1, what);
      fail_level(last, false, what);
    }
  }
  for (std::size_t l = 0; l < n; ++l) {
    const LevelType& t = e.levels[l].type;
    if (t.format == LevelFormat::kNOutOfM) {
      if (l + 1 != n) fail_level(l, true, "expected n_out_of_m to be the last level type");
      for (std::size_t k = 0; k < l; ++k)
        if (e.levels[k].type.format != LevelFormat::kDense)
          fail_level(l, true, "expected all dense lvlTypes before a n_out_of_m level");
      if (e.levels[l].expr.op != ExprOp::kMod || e.levels[l].expr.k != t.m)
        fail_level(l, false,
                   fmt::format("expected 1xm block structure for n_out_of_m level (d mod {})", t.m));
    }
    if (t.format == LevelFormat::kSingleton && (l == 0 || !e.levels[l - 1].type.nonunique))
      fail_level(l, true, "expected a nonunique level before a singleton level");
    if (t.nonunique && l + 1 < n && e.levels[l + 1].type.format != LevelFormat::kSingleton)
      fail_level(l, true, "expected a singleton level after a nonunique level");
  }
}

}  // namespace

const std::vector<Shortcut>& shortcuts() {
  static const std::vector<Shortcut> list = {
      {"csr", "(i, j) -> (i : dense, j : compressed)"},
      {"csc", "(i, j) -> (j : dense, i : compressed)"},
      {"coo", "(i, j) -> (i : compressed(nonunique), j : singleton)"},
      {"dcsr", "(i, j) -> (i : compressed, j : compressed)"},
      {"dcsc", "(i, j) -> (j : compressed, i : compressed)"},
      {"lcsr", "(i, j) -> (i : dense, j : loose_compressed)"},
      {"bsr2x2",
       "(i, j) -> (i floordiv 2 : dense, j floordiv 2 : compressed, i mod 2 : dense, j mod 2 : dense)"},
      {"ell", "[c](i, j) -> (c * 3 * i : dense, i : dense, j : compressed)"},
      {"2:4", "(i, j) -> (i : dense, j floordiv 4 : dense, j mod 4 : block2_4)"},
  };
  return list;
}

namespace {

bool all_digits(std::string_view s) {
  if (s.empty() || s.size() > 6) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// The families behind the named ones: bsrRxC, ellK, N:M.
std::optional<std::string> family(std::string_view s) {
  if (s.rfind("bsr", 0) == 0 && s.find('x') != std::string_view::npos) {
    const auto r = s.substr(3, s.find('x') - 3), c = s.substr(s.find('x') + 1);
    if (all_digits(r) && all_digits(c) && std::stoul(std::string(r)) > 0 && std::stoul(std::string(c)) > 0)
      return fmt::format(
          "(i, j) -> (i floordiv {0} : dense, j floordiv {1} : compressed, i mod {0} : dense, j mod {1} : "
          "dense)",
          r, c);
  }
  if (s.rfind("ell", 0) == 0 && all_digits(s.substr(3)) && std::stoul(std::string(s.substr(3))) > 0)
    return fmt::format("[c](i, j) -> (c * {} * i : dense, i : dense, j : compressed)", s.substr(3));
  if (s.find(':') != std::string_view::npos) {
    const auto n = s.substr(0, s.find(':')), m = s.substr(s.find(':') + 1);
    if (all_digits(n) && all_digits(m))
      return fmt::format("(i, j) -> (i : dense, j floordiv {0} : dense, j mod {0} : block{1}_{0})", m, n);
  }
  return std::nullopt;
}

}  // namespace

Encoding parse_encoding(std::string_view text) {
  std::string_view trimmed = text;
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.front())))
    trimmed.remove_prefix(1);
  while (!trimmed.empty() && std::isspace(static_cast<unsigned char>(trimmed.back())))
    trimmed.remove_suffix(1);
  for (const auto& s : shortcuts())
    if (trimmed == s.name) return parse_encoding(s.text);
  if (const auto f = family(trimmed)) return parse_encoding(*f);
  // NAME/W: a named encoding with W-bit positions and coordinates ("csr/16").
  if (const std::size_t slash = trimmed.rfind('/'); slash != std::string_view::npos) {
    const std::string_view name = trimmed.substr(0, slash), bits = trimmed.substr(slash + 1);
    const bool named = std::any_of(shortcuts().begin(), shortcuts().end(),
                                   [&](const Shortcut& s) { return name == s.name; }) ||
                       family(name).has_value();
    if (named) {
      if (bits != "8" && bits != "16" && bits != "32" && bits != "64")
        throw SparseError(
            fmt::format("'{}': expected NAME/W with W one of 8, 16, 32, 64 (the widths of positions "
                        "and coordinates), got '{}'",
                        core::echo(trimmed), core::echo(bits)));
      Encoding e = parse_encoding(name);
      e.pos_width = e.crd_width = std::stoi(std::string(bits));
      return e;
    }
  }
  Parser p(text);
  Encoding e = p.parse();
  check_map(e, p);
  return e;
}

}  // namespace treesim::sparse
