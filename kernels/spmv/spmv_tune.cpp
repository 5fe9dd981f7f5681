// The sparse kernels' tuner: encodings × partitions × pass plans, each placed and estimated, and
// the plan file that names one (`treesim tune spmv|spmm --out`, `treesim run spmv --plan-file`).
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "kernels/spmv/spmv_kernel.h"
#include "kernels/yaml_file.h"
#include "sim/core/echo.h"
#include "sim/sparse/sparse_error.h"

namespace treesim::kernels {
namespace {

// The encodings the tuner tries: CSR, COO, DCSR, BSR 2×2, ELL as wide as A's longest row (when
// that is not far beyond the mean: ELL pads every row to it) and 2:4 (which stores only a matrix
// that is 2:4 already), each at native, 32- and 16-bit positions and coordinates (NAME/W; a width
// that cannot hold a share's numbers fails its placement). The options' own encoding besides.
std::vector<std::pair<std::string, sparse::Encoding>> tuner_encodings(const SparseProblem& p) {
  const std::vector<std::uint64_t> per_row = sparse::row_entries(p.a);
  const std::uint64_t longest = per_row.empty() ? 0 : *std::max_element(per_row.begin(), per_row.end());
  const std::uint64_t mean = p.a.rows ? (p.a.entries.size() + p.a.rows - 1) / p.a.rows : 0;
  std::vector<std::string> bases{"csr", "coo", "dcsr", "bsr2x2"};
  if (longest > 0 && longest <= std::max<std::uint64_t>(4, 4 * mean))
    bases.push_back(fmt::format("ell{}", longest));
  bases.push_back("2:4");
  std::vector<std::pair<std::string, sparse::Encoding>> out;
  for (const std::string& base : bases)
    for (const char* width : {"", "/32", "/16"}) {
      const std::string name = base + width;  // NAME/W: W-bit positions and coordinates
      out.emplace_back(name, sparse::parse_encoding(name));
    }
  return out;
}

std::string choice_text(const SparsePlacement& s) {
  const SparseChoice& c = s.choice;
  std::string passes = s.passes == 1 ? "1 pass"
                       : s.passes == c.row_blocks
                           ? fmt::format("{} passes", s.passes)
                           : fmt::format("{} passes ({} row block{} in column tiles)", s.passes, c.row_blocks,
                                         c.row_blocks == 1 ? "" : "s");
  return fmt::format("{} {}, {}", c.encoding_name, sparse::partition_name(c.partition), passes);
}

constexpr std::uint64_t kMaxSparsePlanFileBytes = std::uint64_t{1} << 20;
// PEs × row blocks: a plan file past this is refused before anything is placed (each part is a
// matrix in memory; the largest plans the tuner makes hold a few hundred thousand).
constexpr std::uint64_t kMaxSparsePlanShares = std::uint64_t{1} << 22;

// The choice's encoding as its name when the name reads back as it ("csr/16"), else in full.
std::string encoding_text(const SparseChoice& c) {
  const std::string full = sparse::print_encoding(c.encoding);
  try {
    if (sparse::print_encoding(sparse::parse_encoding(c.encoding_name)) == full) return c.encoding_name;
  } catch (const sparse::SparseError&) {
  }
  return full;
}

}  // namespace

Result<Candidates> SparseInstance::candidates(const machine::MachineConfig& m) const {
  Candidates out;
  std::map<std::string, std::uint64_t> pruned;
  auto encodings = tuner_encodings(p_);
  const std::string given = sparse::print_encoding(p_.encoding);
  if (std::none_of(encodings.begin(), encodings.end(),
                   [&](const auto& e) { return sparse::print_encoding(e.second) == given; }))
    encodings.insert(encodings.begin(), {p_.encoding_name, p_.encoding});
  std::set<std::string> seen;  // pass plans that come out the same
  for (const auto& [name, encoding] : encodings)
    for (sparse::Partition partition :
         {sparse::Partition::kRows, sparse::Partition::kNnz, sparse::Partition::k2d}) {
      const bool options_choice = sparse::print_encoding(encoding) == given && partition == p_.partition;
      SparseChoice c{encoding, options_choice ? p_.encoding_name : name, partition, 0, 0};
      // The fewest passes that fit; then, as more passes overlap more of A's loading with the walk,
      // twice and four times as many row blocks.
      // (The options' own choice is the placement plan() makes: made once.)
      std::shared_ptr<const SparsePlacement> fewest;
      if (options_choice) {
        if (auto own = placement(m)) fewest = own.value();
      } else {
        try {
          fewest = std::make_shared<const SparsePlacement>(place_sparse(p_, c, m));
        } catch (const sparse::SparseError&) {
        }
      }
      if (!fewest) {
        ++out.enumerated, ++pruned["the encoding cannot store a share"];
        continue;
      }
      if (fewest->lm_end > m.lm_bytes()) {
        ++out.enumerated, ++pruned["a share does not fit the LM"];
        continue;
      }
      std::vector<std::shared_ptr<const SparsePlacement>> plans{fewest};
      const std::uint64_t most = most_row_blocks(p_, c, m);
      for (std::uint64_t factor : {2, 4}) {
        if (fewest->passes > 1) break;  // already overlapped, and more passes only add their overhead
        SparseChoice more = fewest->choice;
        more.row_blocks *= factor;
        if (more.row_blocks > most) break;
        plans.push_back(std::make_shared<const SparsePlacement>(place_sparse(p_, more, m)));
      }
      for (auto& placed : plans) {
        ++out.enumerated;
        if (!seen.insert(fmt::format("{} {} {} {}", sparse::print_encoding(encoding),
                                     static_cast<int>(partition), placed->choice.row_blocks,
                                     placed->choice.col_tiles))
                 .second) {
          ++pruned["the same as another"];
          continue;
        }
        if (placed->lm_end > m.lm_bytes()) {  // two buffers where one pass had one
          ++pruned["a share does not fit the LM"];
          continue;
        }
        const std::string text = choice_text(*placed);
        const std::uint64_t lm = placed->lm_end;
        Result<Plan> plan = plan_of(std::move(placed), m);
        if (!plan) {
          ++pruned["the checker refuses its program"];
          continue;
        }
        out.ranked.push_back({std::move(plan.value()), text, lm});
      }
    }
  // By estimate; among equals in enumeration order (the options' encoding first when it is none of
  // the tuner's).
  std::stable_sort(out.ranked.begin(), out.ranked.end(), [](const Candidate& a, const Candidate& b) {
    return a.plan.estimated_cycles < b.plan.estimated_cycles;
  });
  for (auto& [why, count] : pruned) out.pruned.emplace_back(why, count);
  if (out.ranked.empty())
    return core::Error{"--matrix", "no encoding, partition and pass plan fits the machine"};
  return out;
}

Result<std::string> SparseInstance::plan_file(const Plan& plan, const machine::MachineConfig& m) const {
  const auto* placed = std::any_cast<std::shared_ptr<const SparsePlacement>>(&plan.mapping);
  if (!placed) return core::Error{"", "spmv: the plan was not made by spmv"};
  const SparsePlacement& s = **placed;
  const std::string kernel = p_.spmm ? "spmm" : "spmv";
  return fmt::format(
      "# treesim plan: {} of {} ({}x{}, {} stored entries) on {} (treesim run {} --plan-file FILE)\n"
      "kernel: {}\nmachine: {}\n"
      "# the matrix it was made for\nrows: {}\ncols: {}\nentries: {}\n{}"
      "encoding: {}\npartition: {}\n"
      "# A in row blocks, each PE's part of one cut into column tiles of at most (the most entries a part\n"
      "# has) / col_tiles entries\nrow_blocks: {}\ncol_tiles: {}\n"
      "# for people; the reader ignores it\nestimated_cycles: {:.0f}\n",
      kernel, p_.matrix, p_.a.rows, p_.a.cols, p_.a.entries.size(), m.name, kernel, kernel,
      yaml_scalar(m.name), p_.a.rows, p_.a.cols, p_.a.entries.size(),
      p_.spmm ? fmt::format("n: {}\n", p_.n) : "", yaml_scalar(encoding_text(s.choice), true),
      sparse::partition_name(s.choice.partition), s.choice.row_blocks, s.choice.col_tiles,
      plan.estimated_cycles);
}

Result<Plan> SparseInstance::plan_from_file(const std::string& path, const machine::MachineConfig& m) const {
  Result<YAML::Node> loaded = load_yaml_file(path, kMaxSparsePlanFileBytes, "plan file");
  if (!loaded) return loaded.errors();
  const YAML::Node& root = loaded.value();
  const auto at = [&](const YAML::Node& node, const std::string& message) {
    return yaml_error(path, node, message);
  };
  const std::string kernel = p_.spmm ? "spmm" : "spmv";
  static const std::set<std::string> keys{
      "kernel",   "machine",   "rows",       "cols",      "entries",         "n",
      "encoding", "partition", "row_blocks", "col_tiles", "estimated_cycles"};
  if (!root.IsMap()) return at(root, "expected a mapping of plan fields (kernel, machine, encoding, ...)");
  for (const auto& kv : root) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (!keys.count(key) || (key == "n" && !p_.spmm))
      return at(kv.first, fmt::format("unknown field '{}' (expected kernel, machine, rows, cols, entries, {}"
                                      "encoding, partition, row_blocks, col_tiles or estimated_cycles)",
                                      core::echo(key), p_.spmm ? "n, " : ""));
  }
  const auto scalar = [&](const char* key) -> Result<std::string> {
    const YAML::Node node = root[key];
    if (!node.IsDefined()) return at(root, fmt::format("'{}' is missing", key));
    if (node.IsNull()) return at(node, fmt::format("'{}': expected a value, got nothing", key));
    if (!node.IsScalar()) return at(node, fmt::format("'{}': expected a value, got a list or mapping", key));
    return node.Scalar();
  };
  const auto whole = [&](const char* key, std::uint64_t& out) -> std::optional<core::Error> {
    Result<std::string> s = scalar(key);
    if (!s) return s.errors().front();
    const std::optional<std::uint64_t> v = whole_number(s.value());
    if (!v || *v == 0)
      return at(root[key],
                fmt::format("'{}': expected a whole number ≥ 1, got '{}'", key, core::echo(s.value())));
    out = *v;
    return std::nullopt;
  };
  for (auto [key, want] : {std::pair<const char*, std::string>{"kernel", kernel}, {"machine", m.name}}) {
    Result<std::string> got = scalar(key);
    if (!got) return got.errors();
    if (got.value() != want)
      return at(root[key], fmt::format("the plan is for {} '{}', this run's is '{}'", key,
                                       core::echo(got.value()), want));
  }
  std::uint64_t rows = 0, cols = 0, entries = 0, n = 1;
  for (auto [key, out] : {std::pair{"rows", &rows}, {"cols", &cols}, {"entries", &entries}})
    if (auto e = whole(key, *out)) return *e;
  if (p_.spmm)
    if (auto e = whole("n", n)) return *e;
  if (rows != p_.a.rows || cols != p_.a.cols || entries != p_.a.entries.size() || n != p_.n)
    return at(root["rows"],
              fmt::format(
                  "the plan is for a {}x{} matrix of {} stored entries{}, this run's A is {}x{} of {} stored "
                  "entries{}",
                  rows, cols, entries, p_.spmm ? fmt::format(" and n {}", n) : "", p_.a.rows, p_.a.cols,
                  p_.a.entries.size(), p_.spmm ? fmt::format(" and n {}", p_.n) : ""));
  SparseChoice c;
  Result<std::string> encoding = scalar("encoding");
  if (!encoding) return encoding.errors();
  try {
    c.encoding = sparse::parse_encoding(encoding.value());
  } catch (const sparse::SparseError& e) {
    return at(root["encoding"], fmt::format("'encoding': {}", e.what()));
  }
  c.encoding_name = encoding.value();
  Result<std::string> partition = scalar("partition");
  if (!partition) return partition.errors();
  if (partition.value() == "all" || !sparse::parse_partition(partition.value(), c.partition))
    return at(root["partition"],
              fmt::format("'partition': expected rows, nnz or 2d, got '{}'", core::echo(partition.value())));
  if (auto e = whole("row_blocks", c.row_blocks)) return *e;
  if (auto e = whole("col_tiles", c.col_tiles)) return *e;
  if (c.row_blocks > most_row_blocks(p_, c, m))
    return at(root["row_blocks"],
              fmt::format("'row_blocks': at most {} (a row per grid row and pass), got {}",
                          most_row_blocks(p_, c, m), c.row_blocks));
  if (const auto parts = checked_mul(m.pe_count(), c.row_blocks); !parts || *parts > kMaxSparsePlanShares)
    return at(root["row_blocks"],
              fmt::format("{} row blocks over {} PEs are more than the {} parts a plan may hold",
                          c.row_blocks, m.pe_count(), kMaxSparsePlanShares));
  const std::uint64_t stored = std::max<std::uint64_t>(1, p_.a.entries.size());
  if (c.col_tiles > stored)
    return at(root["col_tiles"],
              fmt::format("'col_tiles': at most {} (an entry per tile), got {}", stored, c.col_tiles));
  std::shared_ptr<const SparsePlacement> placed;
  try {
    placed = std::make_shared<const SparsePlacement>(place_sparse(p_, c, m));
  } catch (const sparse::SparseError& e) {
    return at(root["encoding"], fmt::format("'encoding': {}", e.what()));
  }
  if (placed->lm_end > m.lm_bytes())
    return at(root["row_blocks"],
              fmt::format("in {} passes a PE's share needs {} bytes of LM, the LM holds {}", placed->passes,
                          placed->lm_end, m.lm_bytes()));
  return plan_of(std::move(placed), m);
}

}  // namespace treesim::kernels
