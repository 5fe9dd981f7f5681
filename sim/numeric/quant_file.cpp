// The only file in sim/numeric that knows yaml-cpp.
#include "sim/numeric/quant_file.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "sim/core/decimal.h"
#include "sim/core/echo.h"
#include "sim/io/input_file.h"

namespace treesim::numeric {

QuantFileError::QuantFileError(const std::string& file, int line, int column, const std::string& message)
    : std::runtime_error(fmt::format("{}:{}:{}: {}", file, line, column, message)) {}

std::vector<double> real_multipliers(const QuantFile::Scales& s) {
  std::vector<double> m;
  const float a = s.a.value_or(1.0f);
  for (float b : s.b) {
    const double product =
        s.float32_product ? static_cast<double>(a * b) : static_cast<double>(a) * static_cast<double>(b);
    m.push_back(product / static_cast<double>(s.out));
  }
  return m;
}

void derive_multipliers(QuantFile& q, const std::function<void(std::size_t, const std::string&)>& fail) {
  const QuantFile::Scales& s = *q.scales;
  // Shifts that some accumulator can use: the single-rounding build allows [-31, 30].
  const int max_shift = q.out.rounding == Rounding::kSingle ? 30 : 31;
  const std::vector<double> reals = real_multipliers(s);
  q.out.multipliers.clear();
  if (q.out.rounding == Rounding::kFloat) {
    // ONNX Runtime's arithmetic: the multiplier is worked out in float32 whatever scale_product says.
    for (std::size_t c = 0; c < s.b.size(); ++c) {
      const float m = onnx_requant_scale(s.a.value_or(1.0f), s.b[c], s.out);
      if (!std::isfinite(m))
        fail(c, fmt::format("the multiplier a_scale·b_scale/out_scale is {} in float32 (expected a finite "
                            "number)",
                            m));
      q.out.multipliers.push_back(float_multiplier(m));
    }
    return;
  }
  for (std::size_t c = 0; c < reals.size(); ++c) {
    if (!std::isfinite(reals[c]))
      fail(c, fmt::format("the multiplier a_scale·b_scale/out_scale is {} (expected a finite number; the "
                          "scales overflow {})",
                          reals[c], s.float32_product ? "float32" : "double"));
    const QuantizedMultiplier m = quantize_multiplier(reals[c], q.out.rounding);
    if (m.shift > max_shift)
      fail(c,
           fmt::format("the multiplier a_scale·b_scale/out_scale = {} needs a left shift of {}, more than {}",
                       reals[c], m.shift, max_shift));
    q.out.multipliers.push_back(m);
  }
}

namespace {

std::string describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return fmt::format("'{}'", core::echo(node.Scalar()));
}

const std::set<std::string> kKeys = {"a_zero_point",  "b_zero_point", "out_zero_point", "out_dtype",
                                     "act_min",       "act_max",      "rounding",       "multiplier",
                                     "shift",         "a_scale",      "b_scale",        "out_scale",
                                     "scale_product", "b_scale_mask"};

// Reads one document with the file name at hand, so every error can say where it is.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    throw QuantFileError(file_, mark.line >= 0 ? mark.line + 1 : 1, mark.column >= 0 ? mark.column + 1 : 1,
                         message);
  }
  [[noreturn]] void fail_field(const YAML::Node& node, const std::string& field,
                               const std::string& expected) const {
    const YAML::Mark mark = node.IsDefined() && node.Mark().line >= 0 ? node.Mark() : root_mark_;
    fail(mark, fmt::format("field '{}': expected {}, got {}", field, expected, describe(node)));
  }

  void set_root(const YAML::Node& root) { root_mark_ = root.Mark(); }

  std::int64_t integer(const YAML::Node& node, const std::string& field, std::int64_t lo,
                       std::int64_t hi) const {
    const std::string expected = fmt::format("an integer in [{}, {}]", lo, hi);
    if (!node.IsScalar()) fail_field(node, field, expected);
    const std::string& s = node.Scalar();
    std::size_t start = !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    bool ok = s.size() > start && s.size() - start <= 18;
    for (std::size_t i = start; i < s.size(); ++i) ok = ok && std::isdigit(static_cast<unsigned char>(s[i]));
    if (!ok) fail_field(node, field, expected);
    const std::int64_t v = std::stoll(s);
    if (v < lo || v > hi) fail_field(node, field, expected);
    return v;
  }

  float scale(const YAML::Node& node, const std::string& field, bool allow_zero) const {
    const char* expected = allow_zero ? "a finite number >= 0" : "a finite number > 0";
    // Decimal numbers only: std::stod would also take hexadecimal floats, "inf" and "nan".
    if (!node.IsScalar() || !core::is_decimal_number(node.Scalar())) fail_field(node, field, expected);
    double v = 0;
    try {
      std::size_t used = 0;
      v = std::stod(node.Scalar(), &used);
      if (used != node.Scalar().size()) fail_field(node, field, expected);
    } catch (const std::logic_error&) {
      fail_field(node, field, expected);
    }
    // Scales are f32 values; one that is not finite as a float is as useless as one that is not as a double.
    const float f = static_cast<float>(v);
    if (!std::isfinite(v) || !std::isfinite(f) || f < 0 || (!allow_zero && f == 0))
      fail_field(node, field, expected);
    return f;
  }

  std::string choice(const YAML::Node& node, const std::string& field,
                     const std::set<std::string>& options) const {
    std::string expected;
    for (const auto& o : options) expected += (expected.empty() ? "" : " or ") + o;
    if (!node.IsScalar() || !options.count(node.Scalar())) fail_field(node, field, expected);
    return node.Scalar();
  }

  // A scalar or a non-empty list of scalars; `read` is applied to each with its field name.
  template <typename T, typename F>
  std::vector<T> one_or_list(const YAML::Node& node, const std::string& field, F read) const {
    if (node.IsScalar()) return {read(node, field)};
    if (!node.IsSequence() || node.size() == 0)
      fail_field(node, field, "a value or a non-empty list of values");
    std::vector<T> out;
    for (std::size_t i = 0; i < node.size(); ++i)
      out.push_back(read(node[i], fmt::format("{}[{}]", field, i)));
    return out;
  }

 private:
  std::string file_;
  YAML::Mark root_mark_;
};

QuantFile read_quant(Reader& r, const YAML::Node& root) {
  r.set_root(root);
  if (!root.IsMap())
    r.fail(
        root.Mark().line >= 0 ? root.Mark() : YAML::Mark(),
        fmt::format("expected a quantization description (a YAML mapping with zero points and multiplier + "
                    "shift or scales), got {}",
                    describe(root)));
  std::set<std::string> seen;
  for (auto it = root.begin(); it != root.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : std::string("?");
    if (!kKeys.count(key)) {
      std::string names;
      for (const auto& k : kKeys) names += (names.empty() ? "" : ", ") + k;
      r.fail(it->first.Mark(),
             fmt::format("unknown field '{}' (expected one of: {})", core::echo(key), names));
    }
    if (!seen.insert(key).second) r.fail(it->first.Mark(), fmt::format("field '{}' given twice", key));
  }

  QuantFile q;
  // A and B may be uint8 or int8; their exact type is known only with the tensors.
  if (root["a_zero_point"])
    q.a_zero_point = static_cast<std::int32_t>(r.integer(root["a_zero_point"], "a_zero_point", -128, 255));
  if (root["b_zero_point"])
    q.b_zero_point = static_cast<std::int32_t>(r.integer(root["b_zero_point"], "b_zero_point", -128, 255));
  OutputStage& out = q.out;
  if (root["out_dtype"])
    out.out_dtype = *core::parse_dtype(r.choice(root["out_dtype"], "out_dtype", {"uint8", "int8"}));
  const std::int64_t lo = dtype_min(out.out_dtype), hi = dtype_max(out.out_dtype);
  const std::string range = fmt::format("{} range", core::dtype_name(out.out_dtype));
  if (root["out_zero_point"])
    out.out_zero_point =
        static_cast<std::int32_t>(r.integer(root["out_zero_point"], "out_zero_point", lo, hi));
  out.act_min =
      static_cast<std::int32_t>(root["act_min"] ? r.integer(root["act_min"], "act_min", lo, hi) : lo);
  out.act_max =
      static_cast<std::int32_t>(root["act_max"] ? r.integer(root["act_max"], "act_max", lo, hi) : hi);
  if (out.act_min > out.act_max)
    r.fail_field(root["act_max"] ? root["act_max"] : root["act_min"], "act_max",
                 fmt::format("a value >= act_min ({})", out.act_min));
  if (root["rounding"])
    out.rounding = *parse_rounding(
        r.choice(root["rounding"], "rounding", {"double", "single", "double_upward", "float"}));

  const bool given_multipliers = root["multiplier"] || root["shift"];
  const bool given_scales = root["a_scale"] || root["b_scale"] || root["out_scale"] || root["scale_product"];
  if (given_multipliers && given_scales) {
    const char* key = root["a_scale"]     ? "a_scale"
                      : root["b_scale"]   ? "b_scale"
                      : root["out_scale"] ? "out_scale"
                                          : "scale_product";
    r.fail(root[key].Mark(),
           fmt::format("field '{}': give either multiplier and shift, or a_scale, b_scale and "
                       "out_scale, not both",
                       key));
  }
  const auto require = [&](const char* key) {
    if (!root[key])
      r.fail(root.Mark(),
             fmt::format("field '{}': missing (give multiplier and shift, or a_scale, b_scale and "
                         "out_scale)",
                         key));
  };
  // Shifts that some accumulator can use: the single-rounding build allows [-31, 30].
  const std::int64_t max_shift = out.rounding == Rounding::kSingle ? 30 : 31;
  out.multipliers.clear();
  if (!given_scales && out.rounding == Rounding::kFloat)
    r.fail(root["rounding"].Mark(),
           "field 'rounding': float rounding takes a_scale, b_scale and out_scale (its multiplier is "
           "fl32(fl32(a_scale·b_scale)/out_scale)), not multiplier and shift");
  if (!given_scales) {
    require("multiplier");
    require("shift");
    const bool nonnegative = out.rounding == Rounding::kSingle;  // single rounding rejects q < 0
    const auto multipliers = r.one_or_list<std::int64_t>(
        root["multiplier"], "multiplier", [&](const YAML::Node& n, const std::string& f) {
          return r.integer(n, f, nonnegative ? 0 : INT32_MIN, INT32_MAX);
        });
    const auto shifts = r.one_or_list<std::int64_t>(
        root["shift"], "shift",
        [&](const YAML::Node& n, const std::string& f) { return r.integer(n, f, -31, max_shift); });
    if (shifts.size() != multipliers.size())
      r.fail_field(root["shift"], "shift",
                   fmt::format("{} value(s), one per multiplier", multipliers.size()));
    for (std::size_t i = 0; i < shifts.size(); ++i)
      out.multipliers.push_back({static_cast<std::int32_t>(multipliers[i]), static_cast<int>(shifts[i])});
    return q;
  }

  require("out_scale");
  QuantFile::Scales s;
  // A missing a_scale or b_scale is calibrated from a float operand on load (float_quant.h).
  if (root["a_scale"]) s.a = r.scale(root["a_scale"], "a_scale", false);
  // A zero weight scale is a dead channel: its multiplier is (0, 0) and every output is the zero point.
  if (root["b_scale"])
    s.b = r.one_or_list<float>(root["b_scale"], "b_scale", [&](const YAML::Node& n, const std::string& f) {
      return r.scale(n, f, true);
    });
  if (root["b_scale_mask"]) {
    s.b_mask = static_cast<int>(r.integer(root["b_scale_mask"], "b_scale_mask", 0, 2));
    if (*s.b_mask == 1)
      r.fail_field(root["b_scale_mask"], "b_scale_mask", "0 (per tensor) or 2 (per column)");
    if (*s.b_mask == 0 && s.b.size() > 1)
      r.fail_field(root["b_scale"], "b_scale", "one value (b_scale_mask is 0: per tensor)");
  }
  s.out = r.scale(root["out_scale"], "out_scale", false);
  s.float32_product = root["scale_product"] ? r.choice(root["scale_product"], "scale_product",
                                                       {"double", "float32"}) == "float32"
                                            : out.out_dtype == DType::kUInt8;
  q.scales = std::move(s);
  if (!q.scales->a || q.scales->b.empty()) return q;  // multipliers follow the calibration
  derive_multipliers(q, [&](std::size_t c, const std::string& message) {
    const YAML::Node& node = root["b_scale"].IsSequence() ? root["b_scale"][c] : root["b_scale"];
    r.fail(node.Mark(), fmt::format("field 'b_scale{}': {}",
                                    root["b_scale"].IsSequence() ? fmt::format("[{}]", c) : "", message));
  });
  return q;
}

}  // namespace

QuantFile parse_quant_yaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw QuantFileError(file, e.mark.line >= 0 ? e.mark.line + 1 : 1,
                         e.mark.column >= 0 ? e.mark.column + 1 : 1,
                         "not valid YAML: " + core::echo(e.msg, 200));
  }
  Reader r(file);
  return read_quant(r, root);
}

QuantFile load_quant_file(const std::string& path) {
  std::string text;
  try {
    text = io::read_input_file(path, io::kMaxQuantFileBytes, "quantization file");
  } catch (const io::InputFileError& e) {
    throw QuantFileError(path, 1, 1, e.reason());
  }
  return parse_quant_yaml(text, path);
}

}  // namespace treesim::numeric
