// The reviewed JSON reports of tests/golden/: each command is rerun and its report compared with the
// golden file exactly, key by key (docs/testing.md §11.3). TREESIM_UPDATE_GOLDEN=1 rewrites the files
// instead; a person must review every such rewrite.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace treesim {
namespace {

using json = nlohmann::ordered_json;

// Keys whose values are host wall time and so differ from run to run. The report holds none today
// (`seconds` is simulated time, cycles / clock, and is compared).
const std::set<std::string> kHostTimeKeys = {};

struct GoldenCase {
  const char* file;               // under tests/golden/
  std::vector<std::string> args;  // after `treesim`; "{src}/" is replaced by the source directory
};

const GoldenCase kCases[] = {
    {"place_12x8_blocked.json",
     {"place", "--machine", "{src}/configs/mini.yaml", "--shape", "12,8", "--layout",
      "((4_PE, 3:8), (8:1))"}},
    {"place_12x8_broadcast.json",
     {"place", "--machine", "{src}/configs/mini.yaml", "--shape", "12,8", "--layout",
      "((12:8), (8:1); B@[PE])"}},
    {"exec_gemm.json", {"exec", "{src}/docs/examples/gemm.prog", "--machine", "{src}/configs/mini.yaml"}},
    {"qgemm_37x50x129_per_channel.json",
     {"run", "qgemm", "--machine", "{src}/configs/mini.yaml", "--m", "37", "--n", "50", "--k", "129",
      "--seed", "1", "--per-channel", "--verify"}},
    {"qgemm_8x8x8.json",
     {"run", "qgemm", "--machine", "{src}/configs/mini.yaml", "--m", "8", "--n", "8", "--k", "8",
      "--verify"}},
};

// Names the case by its file in test names and messages, not by its bytes.
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.file; }

std::string quoted(const json& value) { return value.dump(); }

// Appends one line per difference: "path: golden X vs got Y".
void diff(const json& golden, const json& got, const std::string& path, std::vector<std::string>& out) {
  if (golden.is_object() && got.is_object()) {
    std::vector<std::string> golden_keys, got_keys;
    for (const auto& [key, value] : golden.items()) {
      golden_keys.push_back(key);
      if (kHostTimeKeys.count(key)) continue;
      const std::string sub = path.empty() ? key : path + "." + key;
      if (!got.contains(key))
        out.push_back(sub + ": golden " + quoted(value) + " vs got (missing)");
      else
        diff(value, got.at(key), sub, out);
    }
    for (const auto& [key, value] : got.items()) {
      got_keys.push_back(key);
      if (!golden.contains(key))
        out.push_back((path.empty() ? key : path + "." + key) + ": golden (missing) vs got " + quoted(value));
    }
    if (out.empty() && golden_keys != got_keys) out.push_back(path + ": the keys come in another order");
    return;
  }
  if (golden.is_array() && got.is_array() && golden.size() == got.size()) {
    for (std::size_t i = 0; i < golden.size(); ++i)
      diff(golden[i], got[i], path + "[" + std::to_string(i) + "]", out);
    return;
  }
  if (golden != got) out.push_back(path + ": golden " + quoted(golden) + " vs got " + quoted(got));
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, ReportEqualsTheReviewedFile) {
  const GoldenCase& c = GetParam();
  const std::string src = TREESIM_SOURCE_DIR;
  std::vector<std::string> args;
  for (std::string a : c.args) {
    if (a.rfind("{src}/", 0) == 0) a = src + a.substr(5);
    args.push_back(a);
  }
  const std::string report = testing::temp_path(c.file);
  args.insert(args.end(), {"--report", report, "--quiet"});
  testing::CliResult r = testing::run_treesim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string text = testing::read_text(report);
  const std::string golden_path = testing::source_path(std::string("tests/golden/") + c.file);

  const char* update = std::getenv("TREESIM_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(golden_path, std::ios::binary) << text;
    std::cout << "rewrote " << golden_path << ": review the diff before committing it\n";
    return;
  }
  const std::string golden_text = testing::read_text(golden_path);
  ASSERT_FALSE(golden_text.empty()) << "cannot read " << golden_path;
  std::vector<std::string> differences;
  diff(json::parse(golden_text), json::parse(text), "", differences);
  std::string message;
  for (const std::string& d : differences) message += "  " + d + "\n";
  EXPECT_TRUE(differences.empty()) << c.file << " differs from the run (TREESIM_UPDATE_GOLDEN=1 rewrites it; "
                                   << "review the diff):\n"
                                   << message;
}

std::string case_name(const ::testing::TestParamInfo<GoldenCase>& info) {
  std::string name = info.param.file;
  name = name.substr(0, name.find('.'));
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Mini, Golden, ::testing::ValuesIn(kCases), case_name);

}  // namespace
}  // namespace treesim
