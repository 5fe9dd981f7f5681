// Plan files written by an earlier treesim (tests/data/plans/, from `treesim tune ... --out` at
// commit c84ff2d) still run, and give the DRAM traffic, per-level traffic and instruction counts
// that version gave (tests/data/plans/expected.json, written by it), in no more cycles (stores of
// disjoint blocks have since stopped waiting for each other; the last step runs in tail pieces).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

using json = nlohmann::json;

class PlanFiles : public ::testing::TestWithParam<std::size_t> {
 public:
  static json expected() { return json::parse(read_text(source_path("tests/data/plans/expected.json"))); }
};

TEST_P(PlanFiles, RunInTheCyclesAndTrafficTheyWereWrittenFor) {
  const json want = expected()["runs"][GetParam()];
  std::vector<std::string> args;
  for (const auto& a : want["args"]) {
    const std::string s = a.get<std::string>();
    // Paths in the file are relative to the repository.
    args.push_back(s.find('/') != std::string::npos ? source_path(s) : s);
  }
  const std::string report = temp_path(want["name"].get<std::string>() + ".json");
  args.insert(args.end(), {"--timing-only", "-q", "--report", report});
  const CliResult r = run_treesim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json got = json::parse(read_text(report));
  EXPECT_LE(got["cycles"].get<std::uint64_t>(), want["cycles"].get<std::uint64_t>());
  EXPECT_EQ(got["dram"], want["dram"]);
  for (const auto& [level, traffic] : want["levels"].items())
    for (const auto& [key, value] : traffic.items())
      EXPECT_EQ(got["levels"][level][key], value) << level << " " << key;
  // The same loads; the last step's MACs, requants and stores may since run in tail pieces.
  for (const auto& [kind, count] : want["instructions"].items())
    if (kind == "mac" || kind == "requant" || kind == "store")
      EXPECT_GE(got["instructions"][kind]["count"], count) << kind;
    else
      EXPECT_EQ(got["instructions"][kind]["count"], count) << kind;
}

INSTANTIATE_TEST_SUITE_P(WrittenBefore, PlanFiles, ::testing::Range<std::size_t>(0, 6),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return PlanFiles::expected()["runs"][info.param]["name"].get<std::string>();
                         });

}  // namespace
}  // namespace treesim::testing
