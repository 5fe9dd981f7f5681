// The GEMM plan file (and the chain plan file of its layers).
#include "kernels/gemm/plan_file.h"

#include <any>
#include <map>
#include <set>

#include <fmt/format.h>

#include "kernels/yaml_file.h"
#include "sim/core/echo.h"

namespace treesim::kernels {
namespace {

constexpr std::uint64_t kMaxPlanFileBytes = std::uint64_t{1} << 20;  // far above any real plan

const std::set<std::string> kKeys = {
    "kernel",      "machine",     "m",       "n",          "k",       "split",           "m_passes_factor",
    "pass_splits", "min_k_steps", "buffers", "stationary", "layouts", "estimated_cycles"};

// "L2B" or "L2B/2" (2 of its units) in a split list.
std::string use_text(const Assignment::Use& u, const machine::MachineConfig& m) {
  const auto& level = m.levels[u.level];
  return u.size == level.fanout ? level.name : fmt::format("{}/{}", level.name, u.size);
}

std::string uses_text(const std::vector<Assignment::Use>& uses, const machine::MachineConfig& m) {
  std::string s;
  for (const auto& u : uses) s += (s.empty() ? "" : ", ") + use_text(u, m);
  return "[" + s + "]";
}

struct Reader {
  const std::string& path;
  core::Error at(const YAML::Node& node, const std::string& message) const {
    return yaml_error(path, node, message);
  }
};

}  // namespace

std::string plan_file_text(const GemmPlanFile& f, const QgemmPlan& plan, const machine::MachineConfig& m,
                           const std::string& layouts, bool header) {
  std::string s = header ? fmt::format(
                               "# treesim plan: {} {}×{}×{} on {} (treesim run {} --plan-file FILE)\n"
                               "kernel: {}\nmachine: {}\n",
                               f.kernel, f.m, f.n, f.k, f.machine, f.kernel, f.kernel, yaml_scalar(f.machine))
                         : "";
  s += fmt::format(
      "m: {}\nn: {}\nk: {}\n"
      "# the levels that split each dimension, outermost first (LEVEL/U: U of its units; a level in\n"
      "# M and N: a grid of M's units by N's)\n"
      "split:\n  M: {}\n  N: {}\n  K: {}\n"
      "# C in this many times the passes the LM needs, split pass_splits more times; K in at least\n"
      "# this many steps; this many LM buffers per streamed operand (2 or 3); the operand kept in the\n"
      "# LM over the passes that share it (none, A or B)\n"
      "m_passes_factor: {}\npass_splits: {}\nmin_k_steps: {}\nbuffers: {}\nstationary: {}\n"
      "# for people; the reader ignores them\nestimated_cycles: {:.0f}\nlayouts:\n",
      f.m, f.n, f.k, uses_text(f.assignment.m, m), uses_text(f.assignment.n, m), uses_text(f.assignment.k, m),
      f.tiling.extra_m_passes, f.tiling.pass_splits, f.tiling.min_steps, f.tiling.buffers,
      stationary_name(plan.stationary), plan.estimated_cycles);  // what it keeps (none with one pass)
  std::size_t from = 0;
  while (from < layouts.size()) {
    std::size_t end = layouts.find('\n', from);
    if (end == std::string::npos) end = layouts.size();
    s += "  " + layouts.substr(from, end - from) + "\n";
    from = end + 1;
  }
  return s;
}

namespace {

// The fields of one plan: `root` a whole plan file (`top`: kernel and machine too) or one layer of
// a chain plan file.
Result<GemmPlanFile> parse_fields(const YAML::Node& root, const Reader& r, const machine::MachineConfig& m,
                                  bool top) {
  if (!root.IsMap())
    return r.at(root, "expected a mapping of plan fields (kernel, machine, m, n, k, split, ...)");
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (!kKeys.count(key) || (!top && (key == "kernel" || key == "machine")))
      return r.at(kv.first,
                  fmt::format("unknown field '{}' (expected one of {}m, n, k, split, "
                              "m_passes_factor, pass_splits, min_k_steps, buffers, stationary, layouts, "
                              "estimated_cycles)",
                              core::echo(key), top ? "kernel, machine, " : ""));
  }
  GemmPlanFile f;
  for (auto [key, out] : {std::pair{"kernel", &f.kernel}, {"machine", &f.machine}}) {
    if (!top) break;
    const YAML::Node node = root[key];
    if (!node.IsDefined() || !node.IsScalar())
      return r.at(node.IsDefined() ? node : root, fmt::format("'{}': expected a name", key));
    *out = node.Scalar();
  }
  auto whole = [&](const char* key, std::uint64_t& out, std::uint64_t min) -> std::optional<core::Error> {
    const YAML::Node node = root[key];
    if (!node.IsDefined()) return r.at(root, fmt::format("'{}' is missing", key));
    const std::string s = node.IsScalar() ? node.Scalar() : "";
    const std::optional<std::uint64_t> v = whole_number(s);
    if (!v || *v < min)
      return r.at(node, fmt::format("'{}': expected a whole number ≥ {}, got {}", key, min,
                                    node.IsScalar() ? "'" + core::echo(s) + "'" : "a list or mapping"));
    out = *v;
    return std::nullopt;
  };
  for (auto [key, out, min] : {std::tuple{"m", &f.m, 1},
                               {"n", &f.n, 1},
                               {"k", &f.k, 1},
                               {"m_passes_factor", &f.tiling.extra_m_passes, 1},
                               {"min_k_steps", &f.tiling.min_steps, 1}})
    if (auto e = whole(key, *out, static_cast<std::uint64_t>(min))) return *e;
  // Files written before pass splits existed split C no more than the LM needs.
  if (root["pass_splits"].IsDefined())
    if (auto e = whole("pass_splits", f.tiling.pass_splits, 0)) return *e;
  // Files written before three buffers existed have two.
  if (const YAML::Node node = root["buffers"]; node.IsDefined()) {
    const std::optional<std::uint64_t> v = whole_number(node.IsScalar() ? node.Scalar() : "");
    if (!v || *v < 2 || *v > kMaxBuffers)
      return r.at(node,
                  fmt::format("'buffers': expected 2 or 3, got {}",
                              node.IsScalar() ? "'" + core::echo(node.Scalar()) + "'" : "a list or mapping"));
    f.tiling.buffers = *v;
  }
  // Files written before stationary operands existed keep none.
  if (const YAML::Node node = root["stationary"]; node.IsDefined()) {
    const std::string text = node.IsScalar() ? node.Scalar() : "";
    bool known = false;
    for (Stationary s : {Stationary::kNone, Stationary::kA, Stationary::kB})
      if (text == stationary_name(s)) f.tiling.stationary = s, known = true;
    if (!known)
      return r.at(node, fmt::format("'stationary': expected none, A or B, got {}",
                                    node.IsScalar() ? "'" + core::echo(text) + "'" : "a list or mapping"));
  }
  const YAML::Node split = root["split"];
  if (!split.IsDefined() || !split.IsMap())
    return r.at(split.IsDefined() ? split : root,
                "'split': expected a mapping of M, N, K to lists of levels");
  std::map<std::size_t, std::string> used;  // level → the dimension it splits
  for (const auto& kv : split) {
    const std::string dim = kv.first.IsScalar() ? kv.first.Scalar() : "";
    std::vector<Assignment::Use>* list = dim == "M"   ? &f.assignment.m
                                         : dim == "N" ? &f.assignment.n
                                         : dim == "K" ? &f.assignment.k
                                                      : nullptr;
    if (!list)
      return r.at(kv.first,
                  fmt::format("'split': unknown dimension '{}' (expected M, N or K)", core::echo(dim)));
    if (!kv.second.IsSequence())
      return r.at(kv.second, fmt::format("'split.{}': expected a list of levels", dim));
    for (const auto& item : kv.second) {
      const std::string s = item.IsScalar() ? item.Scalar() : "";
      const std::size_t slash = s.find('/');
      const std::string name = s.substr(0, slash);
      const auto level = m.level_index(name);
      if (!level)
        return r.at(item,
                    fmt::format("'split.{}': '{}' is no level of machine {}", dim, core::echo(name), m.name));
      Assignment::Use use{*level, m.levels[*level].fanout};
      if (slash != std::string::npos) {
        const std::string units = s.substr(slash + 1);
        bool ok = !units.empty() && units.size() < 10;
        for (char c : units) ok = ok && c >= '0' && c <= '9';
        if (!ok || std::stoull(units) == 0 || std::stoull(units) > use.size)
          return r.at(item, fmt::format("'split.{}': '{}': expected LEVEL/U with 1 ≤ U ≤ {}", dim,
                                        core::echo(s), use.size));
        use.size = std::stoull(units);
      }
      // M and N may share a level (its units a grid of the two); nothing else splits one twice.
      const auto [at, fresh] = used.emplace(*level, dim);
      if (!fresh && (at->second == dim || at->second == "K" || dim == "K" || at->second == "M×N"))
        return r.at(item, fmt::format("'split.{}': level {} is split twice", dim, name));
      if (!fresh) at->second = "M×N";
      list->push_back(use);
    }
  }
  return f;
}

}  // namespace

// A chain plan file's fields from its YAML (the file's lines named by `path`).
Result<GemmChainPlanFile> chain_plan_file_of(const YAML::Node& root, const std::string& path,
                                             const machine::MachineConfig& m);

Result<GemmPlanFile> read_plan_file(const std::string& path, const machine::MachineConfig& m) {
  Result<YAML::Node> root = load_yaml_file(path, kMaxPlanFileBytes, "plan file");
  if (!root) return root.errors();
  return parse_fields(root.value(), Reader{path}, m, true);
}

Result<GemmPlanFile> parse_plan_file(const std::string& text, const std::string& path,
                                     const machine::MachineConfig& m) {
  Result<YAML::Node> root = parse_yaml_text(text, path);
  if (!root) return root.errors();
  return parse_fields(root.value(), Reader{path}, m, true);
}

Result<GemmChainPlanFile> read_chain_plan_file(const std::string& path, const machine::MachineConfig& m) {
  Result<YAML::Node> loaded = load_yaml_file(path, kMaxPlanFileBytes, "plan file");
  if (!loaded) return loaded.errors();
  return chain_plan_file_of(loaded.value(), path, m);
}

Result<GemmChainPlanFile> parse_chain_plan_file(const std::string& text, const std::string& path,
                                                const machine::MachineConfig& m) {
  Result<YAML::Node> loaded = parse_yaml_text(text, path);
  if (!loaded) return loaded.errors();
  return chain_plan_file_of(loaded.value(), path, m);
}

Result<GemmChainPlanFile> chain_plan_file_of(const YAML::Node& root, const std::string& path,
                                             const machine::MachineConfig& m) {
  const Reader r{path};
  if (!root.IsMap()) return r.at(root, "expected a mapping with kernel, machine and layers");
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (key != "kernel" && key != "machine" && key != "layers" && key != "estimated_cycles" &&
        key != "activations")
      return r.at(kv.first,
                  fmt::format("unknown field '{}' (expected kernel, machine, layers, activations or "
                              "estimated_cycles)",
                              core::echo(key)));
  }
  GemmChainPlanFile f;
  if (const YAML::Node a = root["activations"]; a.IsDefined()) {
    if (!a.IsScalar() || (a.Scalar() != "lm" && a.Scalar() != "dram"))
      return r.at(a, "'activations': expected lm or dram");
    f.via_dram = a.Scalar() == "dram";
  }
  for (auto [key, out] : {std::pair{"kernel", &f.kernel}, {"machine", &f.machine}}) {
    const YAML::Node node = root[key];
    if (!node.IsDefined() || !node.IsScalar())
      return r.at(node.IsDefined() ? node : root, fmt::format("'{}': expected a name", key));
    *out = node.Scalar();
  }
  const YAML::Node layers = root["layers"];
  if (!layers.IsDefined() || !layers.IsSequence() || layers.size() == 0)
    return r.at(layers.IsDefined() ? layers : root, "'layers': expected a list of layer plans");
  for (const auto& layer : layers) {
    Result<GemmPlanFile> one = parse_fields(layer, r, m, false);
    if (!one) return one.errors();
    f.layers.push_back(std::move(one.value()));
  }
  return f;
}

namespace {

std::string indented(const std::string& text, const std::string& first, const std::string& rest) {
  std::string out;
  std::size_t from = 0;
  bool head = true;
  while (from < text.size()) {
    std::size_t end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(from, end - from);
    if (line.rfind("#", 0) != 0) {  // comments stay in the single-plan file only
      out += (head ? first : rest) + line + "\n";
      head = false;
    }
    from = end + 1;
  }
  return out;
}

}  // namespace

Result<std::string> gemm_plan_file_text(const std::string& kernel, const std::string& b_name,
                                        const QgemmProblem& problem, const Plan& plan,
                                        const machine::MachineConfig& machine) {
  const auto* p = std::any_cast<QgemmPlan>(&plan.mapping);
  if (!p) return core::Error{"", kernel + ": the plan was not made by " + kernel};
  GemmPlanFile f{kernel, machine.name, problem.m, problem.n, problem.k, p->assignment, p->tiling};
  return plan_file_text(f, *p, machine,
                        "A: \"" + whole_layout_a(problem, *p, machine) + "\"\n" + b_name + ": \"" +
                            whole_layout_b(problem, *p, machine) + "\"\nC: \"" +
                            whole_layout_c(problem, *p, machine) + "\"");
}

std::string chain_plan_file_text(const std::string& machine_name, const std::vector<std::string>& layer_texts,
                                 double estimated_cycles, const std::string& comment, bool via_dram) {
  std::string s = "# " + comment + "\nkernel: chain\nmachine: " + yaml_scalar(machine_name) +
                  (via_dram ? "\nactivations: dram" : "\nactivations: lm") +
                  fmt::format("\nestimated_cycles: {:.0f}\nlayers:\n", estimated_cycles);
  for (const std::string& t : layer_texts) s += indented(t, "  - ", "    ");
  return s;
}

Result<QgemmPlan> plan_for(const GemmPlanFile& f, const QgemmProblem& prob, const machine::MachineConfig& m,
                           const std::string& where) {
  for (auto [name, planned, given] : {std::tuple{"m", f.m, prob.m}, {"n", f.n, prob.n}, {"k", f.k, prob.k}})
    if (planned != given)
      return core::Error{where,
                         fmt::format("the plan is for {} = {}, the problem has {}", name, planned, given)};
  auto shaped = try_shape_plan(prob, m, f.assignment, f.tiling);
  if (auto* r = std::get_if<Rejection>(&shaped))
    return core::Error{where, "the plan cannot work: " + r->message};
  QgemmPlan plan = std::get<QgemmPlan>(std::move(shaped));
  if (auto r = estimate_plan(prob, plan, m)) return core::Error{where, "the plan cannot work: " + r->message};
  return plan;
}

Result<QgemmPlan> plan_from_file(const std::string& path, const std::string& kernel, const QgemmProblem& prob,
                                 const machine::MachineConfig& m) {
  Result<GemmPlanFile> read = read_plan_file(path, m);
  if (!read) return read.errors();
  const GemmPlanFile& f = read.value();
  if (f.kernel != kernel)
    return core::Error{path, fmt::format("the plan is for {}, not {}", core::echo(f.kernel), kernel)};
  if (f.machine != m.name)
    return core::Error{path,
                       fmt::format("the plan is for machine {}, not {}", core::echo(f.machine), m.name)};
  return plan_for(f, prob, m, path);
}

}  // namespace treesim::kernels
