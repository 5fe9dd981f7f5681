#include "sim/io/npy.h"

#include <cctype>
#include <cstring>
#include <limits>
#include <optional>

#include "sim/core/echo.h"
#include "sim/io/atomic_file.h"
#include "sim/io/input_file.h"

namespace treesim::io {
namespace {

// .npy stores little-endian data and treesim copies it as it is.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "npy I/O assumes a little-endian host");

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicSize = 6;

struct DescrName {
  const char* descr;
  core::DType dtype;
};
// The descr strings NumPy writes ('|' for one-byte types), plus the equivalent '<' spellings.
// NumPy has no bfloat16: ml_dtypes' np.save writes it as a 2-byte void ('<V2'), which JAX's and
// Keras' loaders read as bfloat16 too; a header written by hand may say 'bfloat16'.
constexpr DescrName kDescrs[] = {
    {"|i1", core::DType::kInt8},     {"<i1", core::DType::kInt8},         {"|u1", core::DType::kUInt8},
    {"<u1", core::DType::kUInt8},    {"<i4", core::DType::kInt32},        {"<f4", core::DType::kFloat32},
    {"<f8", core::DType::kFloat64},  {"<f2", core::DType::kFloat16},      {"<V2", core::DType::kBFloat16},
    {"|V2", core::DType::kBFloat16}, {"bfloat16", core::DType::kBFloat16}};

const char* descr_of(core::DType t) {
  switch (t) {
    case core::DType::kInt8:
      return "|i1";
    case core::DType::kUInt8:
      return "|u1";
    case core::DType::kInt16:  // not a .npy type of treesim's: no command reads or writes it
      return "<i2";
    case core::DType::kInt32:
      return "<i4";
    case core::DType::kFloat32:
      return "<f4";
    case core::DType::kFloat64:
      return "<f8";
    case core::DType::kFloat16:
      return "<f2";
    case core::DType::kBFloat16:
      return "<V2";
  }
  return "?";
}

// The header is a Python dict literal: {'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }.
// This reads exactly that grammar (keys and strings in either quote, a tuple of integers, booleans).
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  [[noreturn]] void fail(const std::string& what) const {
    std::string_view header = s_;
    while (!header.empty() && std::isspace(static_cast<unsigned char>(header.back())))
      header.remove_suffix(1);
    // The header is echoed escaped and cut: it may hold newlines or be megabytes long.
    throw NpyError(name_ + ": bad .npy header: " + what + " in " + core::echo(header));
  }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(char c) {
    skip_space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  std::string string() {
    skip_space();
    if (i_ >= s_.size() || (s_[i_] != '\'' && s_[i_] != '"')) fail("expected a quoted string");
    const char quote = s_[i_++];
    const std::size_t end = s_.find(quote, i_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(s_.substr(i_, end - i_));
    i_ = end + 1;
    return out;
  }
  bool boolean() {
    skip_space();
    for (const auto& [word, value] : {std::pair<std::string_view, bool>{"True", true}, {"False", false}}) {
      if (s_.substr(i_, word.size()) == word) {
        i_ += word.size();
        return value;
      }
    }
    fail("expected True or False");
  }
  std::vector<std::uint64_t> tuple() {
    expect('(');
    std::vector<std::uint64_t> dims;
    while (!eat(')')) {
      skip_space();
      std::uint64_t v = 0;
      std::size_t digits = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (v > (std::numeric_limits<std::uint64_t>::max() - 9) / 10) fail("dimension too large");
        v = v * 10 + static_cast<std::uint64_t>(s_[i_++] - '0');
        ++digits;
      }
      if (digits == 0) fail("expected a non-negative integer dimension");
      dims.push_back(v);
      if (!eat(',')) {
        expect(')');
        break;
      }
    }
    return dims;
  }
  bool at_end() {
    skip_space();
    return i_ == s_.size();
  }

 private:
  std::string_view s_;
  const std::string& name_;
  std::size_t i_ = 0;
};

std::uint32_t little_endian(const unsigned char* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

std::uint64_t NpyArray::size() const {
  std::uint64_t n = 1;
  for (std::uint64_t d : shape) n *= d;
  return n;
}

std::string shape_string(const std::vector<std::uint64_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1) s += ",";
  return s + ")";
}

NpyArray parse_npy(std::string_view data, const std::string& name) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  if (data.size() < kMagicSize || data.substr(0, kMagicSize) != std::string_view(kMagic, kMagicSize))
    throw NpyError(name + ": not a .npy file (expected the magic \\x93NUMPY at the start)");
  if (data.size() < kMagicSize + 2) throw NpyError(name + ": truncated .npy file (no format version)");
  const int major = p[6], minor = p[7];
  if (major < 1 || major > 3 || minor != 0)
    throw NpyError(name + ": expected .npy format version 1.0, 2.0 or 3.0, got " + std::to_string(major) +
                   "." + std::to_string(minor));
  const std::size_t len_bytes = major == 1 ? 2 : 4;
  if (data.size() < 8 + len_bytes) throw NpyError(name + ": truncated .npy file (no header length)");
  const std::size_t header_len = little_endian(p + 8, static_cast<int>(len_bytes));
  const std::size_t data_start = 8 + len_bytes + header_len;
  if (data.size() < data_start)
    throw NpyError(name + ": truncated .npy file (header of " + std::to_string(header_len) +
                   " bytes is cut off)");

  HeaderParser h(data.substr(8 + len_bytes, header_len), name);
  std::optional<core::DType> dtype;
  std::optional<bool> fortran;
  std::optional<std::vector<std::uint64_t>> shape;
  h.expect('{');
  while (!h.eat('}')) {
    const std::string key = h.string();
    h.expect(':');
    if (key == "descr") {
      const std::string descr = h.string();
      for (const auto& d : kDescrs)
        if (descr == d.descr) dtype = d.dtype;
      if (!dtype) {
        const bool big = !descr.empty() && descr[0] == '>';
        throw NpyError(name +
                       ": expected dtype int8, uint8, int32, float16, bfloat16, float32 or float64 "
                       "(little-endian), got '" +
                       core::echo(descr) + "'" + (big ? " (big-endian)" : ""));
      }
    } else if (key == "fortran_order") {
      fortran = h.boolean();
    } else if (key == "shape") {
      shape = h.tuple();
    } else {
      h.fail("unknown key '" + core::echo(key) + "'");
    }
    if (!h.eat(',')) {
      h.expect('}');
      break;
    }
  }
  if (!h.at_end()) h.fail("text after the dictionary");
  if (!dtype || !fortran || !shape) h.fail("missing descr, fortran_order or shape");
  if (*fortran) throw NpyError(name + ": expected C order (fortran_order False), got Fortran order");

  NpyArray a;
  a.dtype = *dtype;
  a.shape = *shape;
  std::uint64_t count = 1;
  for (std::uint64_t d : a.shape) {
    if (d != 0 && count > std::numeric_limits<std::uint64_t>::max() / core::dtype_bytes(a.dtype) / d)
      throw NpyError(name + ": shape " + shape_string(a.shape) + " is too large");
    count *= d;
  }
  const std::uint64_t need = count * core::dtype_bytes(a.dtype);
  const std::uint64_t have = data.size() - data_start;
  if (have != need)
    throw NpyError(name + ": " + (have < need ? "truncated .npy file: " : "") + "expected " +
                   std::to_string(need) + " data bytes for " + core::dtype_name(a.dtype) + " " +
                   shape_string(a.shape) + ", got " + std::to_string(have));
  a.bytes.assign(p + data_start, p + data.size());
  return a;
}

NpyArray read_npy(const std::string& path) {
  std::string data;
  try {
    data = read_input_file(path, kMaxNpyFileBytes, ".npy file");
  } catch (const InputFileError& e) {
    throw NpyError(e.what());
  }
  return parse_npy(data, path);
}

std::string to_npy_bytes(const NpyArray& a) {
  if (a.bytes.size() != a.size() * core::dtype_bytes(a.dtype))
    throw NpyError("array of " + std::string(core::dtype_name(a.dtype)) + " " + shape_string(a.shape) +
                   " needs " + std::to_string(a.size() * core::dtype_bytes(a.dtype)) + " bytes, has " +
                   std::to_string(a.bytes.size()));
  std::string header = std::string("{'descr': '") + descr_of(a.dtype) +
                       "', 'fortran_order': False, 'shape': " + shape_string(a.shape) + ", }";
  // Pad with spaces and end with '\n' so that the data starts on a 64-byte boundary.
  const bool v2 = header.size() + 1 + 10 > 65535;
  const std::size_t prefix = v2 ? 12 : 10;
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, kMagicSize);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const std::size_t len = header.size();
  for (std::size_t i = 0; i < (v2 ? 4u : 2u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xFF);
  out += header;
  out.append(reinterpret_cast<const char*>(a.bytes.data()), a.bytes.size());
  return out;
}

void write_npy(const std::string& path, const NpyArray& array) {
  write_file_atomically(path, to_npy_bytes(array));
}

namespace {

// IEEE binary16 → binary32: exact (every half is a float).
float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1Fu, mantissa = h & 0x3FFu, bits = 0;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // inf, NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa != 0) {  // subnormal: normalize
    exponent = 113;
    while ((mantissa & 0x400u) == 0) mantissa <<= 1, --exponent;
    bits = sign | (exponent << 23) | ((mantissa & 0x3FFu) << 13);
  } else {
    bits = sign;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

std::vector<float> npy_floats(const NpyArray& a, const std::string& name) {
  switch (a.dtype) {
    case core::DType::kFloat32:
      return npy_values<float>(a, name);
    case core::DType::kFloat16: {
      std::vector<float> out(a.size());
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = half_to_float(static_cast<std::uint16_t>(a.bytes[2 * i] | (a.bytes[2 * i + 1] << 8)));
      return out;
    }
    case core::DType::kBFloat16: {
      // bfloat16 is the top half of a float32: exact.
      std::vector<float> out(a.size());
      for (std::size_t i = 0; i < out.size(); ++i) {
        const std::uint32_t bits = static_cast<std::uint32_t>(a.bytes[2 * i] | (a.bytes[2 * i + 1] << 8))
                                   << 16;
        std::memcpy(&out[i], &bits, 4);
      }
      return out;
    }
    default:
      throw NpyError(name + ": expected a float dtype (float16, bfloat16 or float32), got " +
                     core::dtype_name(a.dtype));
  }
}

std::vector<std::int32_t> npy_integers(const NpyArray& a, const std::string& name) {
  switch (a.dtype) {
    case core::DType::kInt8: {
      auto v = npy_values<std::int8_t>(a, name);
      return {v.begin(), v.end()};
    }
    case core::DType::kUInt8: {
      auto v = npy_values<std::uint8_t>(a, name);
      return {v.begin(), v.end()};
    }
    case core::DType::kInt32:
      return npy_values<std::int32_t>(a, name);
    default:
      throw NpyError(name + ": expected an integer dtype (int8, uint8 or int32), got " +
                     core::dtype_name(a.dtype));
  }
}

}  // namespace treesim::io
