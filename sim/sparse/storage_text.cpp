#include "sim/sparse/storage_text.h"

#include <fmt/format.h>

#include "sim/core/echo.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::sparse {
namespace {

const char* format_name(LevelFormat f) {
  switch (f) {
    case LevelFormat::kDense:
      return "dense";
    case LevelFormat::kCompressed:
      return "compressed";
    case LevelFormat::kLooseCompressed:
      return "loose_compressed";
    case LevelFormat::kSingleton:
      return "singleton";
    case LevelFormat::kNOutOfM:
      return "n_out_of_m";
  }
  return "";
}

template <typename T, typename F>
std::string list(const std::vector<T>& v, std::size_t limit, F&& show) {
  std::string s = "( ";
  const std::size_t n = limit == 0 ? v.size() : std::min(v.size(), limit);
  for (std::size_t k = 0; k < n; ++k) s += (k ? ", " : "") + show(v[k]);
  if (n < v.size()) s += fmt::format(", ... ({} more)", v.size() - n);
  return s + " )";
}

std::string show_value(double v) { return fmt::format("{}", v); }

}  // namespace

std::string storage_text(const SparseMatrix& m, std::size_t limit) {
  const std::uint64_t pad = ell_pad(m.encoding.crd_width);
  const bool ell = m.encoding.is_ell();
  const auto show_crd = [&](std::uint64_t c) {
    return ell && c == pad ? std::string("-1") : std::to_string(c);
  };
  const auto show_pos = [](std::uint64_t p) { return std::to_string(p); };
  const std::uint64_t nnz = nonzeros(m);
  const double cells = static_cast<double>(m.rows) * static_cast<double>(m.cols);
  std::string s = "encoding: " + print_encoding(m.encoding) + "\n";
  s += fmt::format("shape: {}x{}  nnz: {}  nse: {}  density: {:.4g}%\n", m.rows, m.cols, nnz, m.values.size(),
                   100.0 * static_cast<double>(nnz) / cells);
  s += fmt::format("dim = ( {}, {} )\n", m.rows, m.cols);
  s += "lvl = " + list(m.level_sizes, 0, show_pos) + "\n";
  for (std::size_t l = 0; l < m.levels.size(); ++l) {
    if (!m.levels[l].positions.empty())
      s += fmt::format("pos[{}] : {}\n", l, list(m.levels[l].positions, limit, show_pos));
    if (!m.levels[l].coordinates.empty())
      s += fmt::format("crd[{}] : {}\n", l, list(m.levels[l].coordinates, limit, show_crd));
  }
  s += "values : " + list(m.values, limit, show_value) + "\n";
  s += "storage bytes:";
  for (std::size_t l = 0; l < m.levels.size(); ++l) {
    if (!m.levels[l].positions.empty()) s += fmt::format(" pos[{}] {}", l, level_array_bytes(m, l, true));
    if (!m.levels[l].coordinates.empty()) s += fmt::format(" crd[{}] {}", l, level_array_bytes(m, l, false));
  }
  s += fmt::format(" values {} (int8); total {}\n", m.values.size() * kStoredValueBytes,
                   storage_bytes(m, kStoredValueBytes));
  return s;
}

nlohmann::ordered_json storage_json(const SparseMatrix& m) {
  const std::uint64_t pad = ell_pad(m.encoding.crd_width);
  nlohmann::ordered_json j;
  j["encoding"] = print_encoding(m.encoding);
  j["shape"] = {m.rows, m.cols};
  const std::uint64_t nnz = nonzeros(m);
  j["nnz"] = nnz;
  j["nse"] = m.values.size();
  j["density"] = static_cast<double>(nnz) / (static_cast<double>(m.rows) * static_cast<double>(m.cols));
  j["level_sizes"] = m.level_sizes;
  j["levels"] = nlohmann::ordered_json::array();
  for (std::size_t l = 0; l < m.levels.size(); ++l) {
    nlohmann::ordered_json lv;
    lv["format"] = format_name(m.encoding.levels[l].type.format);
    lv["positions"] = m.levels[l].positions;
    nlohmann::ordered_json crd = nlohmann::ordered_json::array();
    for (std::uint64_t c : m.levels[l].coordinates)
      crd.push_back(m.encoding.is_ell() && c == pad ? nlohmann::ordered_json(-1) : nlohmann::ordered_json(c));
    lv["coordinates"] = crd;
    lv["positions_bytes"] = level_array_bytes(m, l, true);
    lv["coordinates_bytes"] = level_array_bytes(m, l, false);
    j["levels"].push_back(lv);
  }
  j["values"] = m.values;
  j["values_bytes"] = m.values.size() * kStoredValueBytes;
  j["storage_bytes"] = storage_bytes(m, kStoredValueBytes);
  return j;
}

namespace {

using Json = nlohmann::json;

struct JsonReader {
  const std::string& name;
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw SparseError(fmt::format("{}: {}: {}", core::echo(name), where, what));
  }
  const Json& field(const Json& obj, const char* key, const std::string& where) const {
    if (!obj.is_object() || !obj.contains(key)) fail(where.empty() ? key : where + "." + key, "missing");
    return obj.at(key);
  }
  std::vector<std::uint64_t> uints(const Json& a, const std::string& where, bool allow_pad,
                                   std::uint64_t pad) const {
    if (!a.is_array()) fail(where, "expected an array of non-negative integers");
    if (a.size() > kMaxStoredEntries) fail(where, fmt::format("more than {} entries", kMaxStoredEntries));
    std::vector<std::uint64_t> out;
    out.reserve(a.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      if (allow_pad && a[k].is_number_integer() && a[k].get<std::int64_t>() == -1) {
        out.push_back(pad);
        continue;
      }
      if (!a[k].is_number_unsigned())
        fail(fmt::format("{}[{}]", where, k), "expected a non-negative integer");
      out.push_back(a[k].get<std::uint64_t>());
    }
    return out;
  }
};

}  // namespace

SparseMatrix read_storage_json(const std::string& text, const std::string& name) {
  JsonReader r{name};
  Json j = Json::parse(text, nullptr, false);
  if (j.is_discarded())
    throw SparseError(core::echo(name) +
                      ": expected a JSON storage file (as `treesim sparse show --json` writes)");
  const Json& enc = r.field(j, "encoding", "");
  if (!enc.is_string()) r.fail("encoding", "expected a string");
  Encoding e;
  try {
    e = parse_encoding(enc.get<std::string>());
  } catch (const SparseError& err) {
    r.fail("encoding", err.what());
  }
  const Json& shape = r.field(j, "shape", "");
  const auto dims = r.uints(shape, "shape", false, 0);
  if (dims.size() != 2 || dims[0] == 0 || dims[1] == 0 || dims[0] > (std::uint64_t{1} << 31) ||
      dims[1] > (std::uint64_t{1} << 31))
    r.fail("shape", "expected [ROWS, COLS], each 1..2^31");
  // Level sizes come from the encoding and shape; an empty matrix built gives them.
  SparseMatrix m = build(Coo{dims[0], dims[1], {}}, e);
  const Json& levels = r.field(j, "levels", "");
  if (!levels.is_array() || levels.size() != e.levels.size())
    r.fail("levels", fmt::format("expected an array of {} levels (the encoding's)", e.levels.size()));
  for (std::size_t l = 0; l < e.levels.size(); ++l) {
    const std::string where = fmt::format("levels[{}]", l);
    m.levels[l].positions = r.uints(r.field(levels[l], "positions", where), where + ".positions", false, 0);
    m.levels[l].coordinates = r.uints(r.field(levels[l], "coordinates", where), where + ".coordinates",
                                      e.is_ell(), ell_pad(e.crd_width));
  }
  const Json& values = r.field(j, "values", "");
  if (!values.is_array() || values.size() > kMaxStoredEntries)
    r.fail("values", "expected an array of numbers");
  m.values.clear();
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (!values[k].is_number()) r.fail(fmt::format("values[{}]", k), "expected a number");
    m.values.push_back(values[k].get<double>());
  }
  try {
    validate(m);
  } catch (const SparseError& err) {
    throw SparseError(core::echo(name) + ": " + err.what());
  }
  return m;
}

}  // namespace treesim::sparse
