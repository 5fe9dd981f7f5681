#include "kernels/kernel.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace treesim::kernels {

std::string option_flag(const std::string& name) { return "--" + name; }

std::vector<std::string> Problem::input_tensors() const {
  std::vector<std::string> names;
  for (const auto& [name, bytes] : inputs()) names.push_back(name);
  return names;
}

DramImage Problem::host_outputs(const Plan&, DramImage dram) const { return dram; }

const program::CheckedProgram* Problem::checked_program(const Plan&) const { return nullptr; }

Result<Candidates> Problem::candidates(const machine::MachineConfig&) const {
  return core::Error{"", "this kernel has no tuning candidates"};
}

Result<std::string> Problem::plan_file(const Plan&, const machine::MachineConfig&) const {
  return core::Error{"", "this kernel has no plan files"};
}

Result<Plan> Problem::plan_from_file(const std::string& path, const machine::MachineConfig&) const {
  return core::Error{"--plan-file", path + ": this kernel has no plan files"};
}

std::string to_text(const OptionValue& value) {
  if (const auto* u = std::get_if<std::uint64_t>(&value)) return std::to_string(*u);
  if (const auto* s = std::get_if<std::int64_t>(&value)) return std::to_string(*s);
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  return std::get<std::string>(value);
}

std::optional<std::uint64_t> Options::unsigned_int(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  if (const auto* u = std::get_if<std::uint64_t>(&it->second)) return *u;
  return std::nullopt;
}

std::optional<std::int64_t> Options::signed_int(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return std::nullopt;
  if (const auto* s = std::get_if<std::int64_t>(&it->second)) return *s;
  return std::nullopt;
}

bool Options::flag(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return false;
  const auto* b = std::get_if<bool>(&it->second);
  return b && *b;
}

std::string Options::text(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return "";
  if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
  return "";
}

namespace {

const OptionSpec* find_spec(const std::vector<OptionSpec>& specs, const std::string& name) {
  for (const auto& s : specs)
    if (s.name == name) return &s;
  return nullptr;
}

// "a, b or c".
std::string alternatives(const std::vector<std::string>& choices) {
  std::string s;
  for (std::size_t i = 0; i < choices.size(); ++i)
    s += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  return s;
}

bool kind_holds(OptionKind kind, const OptionValue& v) {
  switch (kind) {
    case OptionKind::kUnsigned:
      return std::holds_alternative<std::uint64_t>(v);
    case OptionKind::kSigned:
      return std::holds_alternative<std::int64_t>(v);
    case OptionKind::kFlag:
      return std::holds_alternative<bool>(v);
    case OptionKind::kText:
    case OptionKind::kPath:
    case OptionKind::kChoice:
      return std::holds_alternative<std::string>(v);
  }
  return false;
}

const char* kind_name(OptionKind kind) {
  switch (kind) {
    case OptionKind::kUnsigned:
      return "a non-negative integer";
    case OptionKind::kSigned:
      return "an integer";
    case OptionKind::kFlag:
      return "a flag (true or false)";
    case OptionKind::kText:
    case OptionKind::kChoice:
      return "text";
    case OptionKind::kPath:
      return "a path";
  }
  return "a value";
}

std::optional<OptionValue> from_text(OptionKind kind, const std::string& text) {
  if (kind == OptionKind::kUnsigned || kind == OptionKind::kSigned) {
    if (text.empty() || (kind == OptionKind::kUnsigned && text[0] == '-')) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    if (kind == OptionKind::kUnsigned) {
      unsigned long long v = std::strtoull(text.c_str(), &end, 10);
      if (errno || *end) return std::nullopt;
      return OptionValue{static_cast<std::uint64_t>(v)};
    }
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (errno || *end) return std::nullopt;
    return OptionValue{static_cast<std::int64_t>(v)};
  }
  if (kind == OptionKind::kFlag) {
    if (text == "true" || text == "1") return OptionValue{true};
    if (text == "false" || text == "0") return OptionValue{false};
    return std::nullopt;
  }
  return OptionValue{text};
}

}  // namespace

core::Errors check_options(const std::vector<OptionSpec>& specs, const Options& options) {
  core::Errors errors;
  for (const auto& [name, value] : options.values()) {
    const OptionSpec* spec = find_spec(specs, name);
    const std::string where = option_flag(name);
    if (!spec) {
      errors.push_back({where, "no such option"});
      continue;
    }
    if (!kind_holds(spec->kind, value)) {
      errors.push_back({where, fmt::format("expected {}", kind_name(spec->kind))});
      continue;
    }
    if (spec->kind == OptionKind::kChoice && std::find(spec->choices.begin(), spec->choices.end(),
                                                       std::get<std::string>(value)) == spec->choices.end()) {
      errors.push_back({where, fmt::format("expected {}, got '{}'", alternatives(spec->choices),
                                           std::get<std::string>(value))});
      continue;
    }
    // Ranges in 128 bits, so that any uint64 compares with any int64 bound.
    __int128 v = 0;
    if (const auto* u = std::get_if<std::uint64_t>(&value))
      v = *u;
    else if (const auto* s = std::get_if<std::int64_t>(&value))
      v = *s;
    else
      continue;
    if ((spec->min && v < *spec->min) || (spec->max && v > *spec->max)) {
      std::string range = spec->max ? fmt::format("in [{}, {}]", spec->min.value_or(0), *spec->max)
                                    : fmt::format("at least {}", *spec->min);
      errors.push_back({where, fmt::format("expected an integer {}, got {}", range, to_text(value))});
    }
  }
  return errors;
}

Result<Options> parse_options(const std::vector<OptionSpec>& specs,
                              const std::map<std::string, std::string>& given) {
  Options options;
  core::Errors errors;
  for (const auto& [name, text] : given) {
    const OptionSpec* spec = find_spec(specs, name);
    if (!spec) {
      errors.push_back({option_flag(name), "no such option"});
      continue;
    }
    std::optional<OptionValue> v = from_text(spec->kind, text);
    if (!v) {
      errors.push_back(
          {option_flag(name), fmt::format("expected {}, got '{}'", kind_name(spec->kind), text)});
      continue;
    }
    options.set(name, *v);
  }
  for (const auto& spec : specs)
    if (!options.has(spec.name) && spec.default_value) options.set(spec.name, *spec.default_value);
  core::Errors more = check_options(specs, options);
  errors.insert(errors.end(), more.begin(), more.end());
  if (!errors.empty()) return errors;
  return options;
}

report::VerifyResult Problem::verify(const DramImage& gathered, const DramImage& expected) const {
  return compare_arrays(outputs(), gathered, expected);
}

namespace {

// Element i as an integer; float outputs compare by their bits.
std::int64_t element(const std::vector<std::uint8_t>& bytes, core::DType t, std::uint64_t i) {
  const std::size_t w = core::dtype_bytes(t);
  if (t == core::DType::kInt8) return static_cast<std::int8_t>(bytes[i]);
  if (t == core::DType::kUInt8) return bytes[i];
  if (t == core::DType::kInt16) {
    std::int16_t v;
    std::memcpy(&v, bytes.data() + w * i, w);
    return v;
  }
  if (t == core::DType::kInt32 || t == core::DType::kFloat32) {
    std::int32_t v;
    std::memcpy(&v, bytes.data() + w * i, w);
    return v;
  }
  std::int64_t v;
  std::memcpy(&v, bytes.data() + w * i, w);
  return v;
}

// "C[3,7]" for element i of a row-major array.
std::string element_name(const OutputArray& a, std::uint64_t i) {
  std::vector<std::uint64_t> index(a.shape.size());
  for (std::size_t d = a.shape.size(); d-- > 0;) {
    index[d] = a.shape[d] ? i % a.shape[d] : 0;
    i = a.shape[d] ? i / a.shape[d] : 0;
  }
  return fmt::format("{}[{}]", a.tensor, fmt::join(index, ","));
}

}  // namespace

report::VerifyResult compare_arrays(const std::vector<OutputArray>& arrays, const DramImage& gathered,
                                    const DramImage& expected) {
  report::VerifyResult v;
  for (const auto& a : arrays) {
    const std::size_t width = core::dtype_bytes(a.dtype);
    auto g = gathered.find(a.tensor);
    auto e = expected.find(a.tensor);
    const std::uint64_t got_n = g == gathered.end() ? 0 : g->second.size() / width;
    const std::uint64_t want_n = e == expected.end() ? 0 : e->second.size() / width;
    if (got_n != want_n) {
      v.mismatches += std::max(got_n, want_n);
      if (v.first_mismatch.empty()) v.first_mismatch = fmt::format("{} elements, expected {}", got_n, want_n);
      continue;
    }
    for (std::uint64_t i = 0; i < got_n; ++i) {
      const std::int64_t x = element(g->second, a.dtype, i), y = element(e->second, a.dtype, i);
      if (x == y) continue;
      if (v.mismatches++ == 0 && v.first_mismatch.empty())
        v.first_mismatch = fmt::format("{}: got {}, expected {}", element_name(a, i), x, y);
    }
  }
  v.ok = v.mismatches == 0;
  return v;
}

std::vector<Problem::Phase> Problem::phases(const Plan&, const program::Program&,
                                            const machine::MachineConfig&) const {
  return {};
}

Result<Plan> plan_problem(const Problem& problem, const machine::MachineConfig& machine) {
  if (core::Errors e = problem.check(machine); !e.empty()) return e;
  return problem.plan(machine);
}

}  // namespace treesim::kernels
