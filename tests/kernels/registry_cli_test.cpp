// Every kernel of the registry through `treesim run`: its example problem runs on mini and
// verifies bit-exactly, --plan runs nothing, and bad kernels or option values are one-line errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

#include "kernels/registry.h"
#include "sim/io/npy.h"
#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::kernels {
namespace {

using testing::run_treesim;
using testing::source_path;

std::vector<std::string> example_args(const Kernel& k) {
  std::vector<std::string> args{"run", k.name, "--machine", source_path("configs/mini.yaml")};
  for (const auto& [name, value] : k.example) {
    args.push_back(option_flag(name));
    if (value != "true") args.push_back(value);
  }
  return args;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == s.size() - 1; }

TEST(KernelRegistry, NamesAreUniqueAndEveryKernelHasAnExample) {
  std::set<std::string> names;
  for (const auto& k : registry()) {
    EXPECT_TRUE(names.insert(k.name).second) << k.name;
    EXPECT_FALSE(k.example.empty()) << k.name;
    EXPECT_NE(k.make_problem, nullptr) << k.name;
    EXPECT_EQ(find_kernel(k.name), &k);
  }
  EXPECT_EQ(find_kernel("no-such-kernel"), nullptr);
}

TEST(KernelRegistry, EveryExampleParsesAsOptions) {
  for (const auto& k : registry()) {
    Result<Options> o = parse_options(k.options, k.example);
    EXPECT_TRUE(o.ok()) << k.name << ": " << (o.ok() ? "" : o.errors().front().message());
  }
}

TEST(KernelRegistry, EveryKernelVerifiesBitExactlyOnMini) {
  for (const auto& k : registry()) {
    std::string report = testing::temp_path(k.name + ".json");
    std::vector<std::string> args = example_args(k);
    args.insert(args.end(), {"--verify", "--quiet", "--report", report});
    auto r = run_treesim(args);
    ASSERT_EQ(r.exit_code, 0) << k.name << "\n" << r.err;
    nlohmann::json j = nlohmann::json::parse(testing::read_text(report));
    EXPECT_EQ(j["kernel"], k.name);
    EXPECT_EQ(j["verify"]["ok"], true) << k.name;
    EXPECT_GT(j["cycles"].get<std::uint64_t>(), 0u) << k.name;
    EXPECT_FALSE(j["info"]["plan"].get<std::string>().empty()) << k.name;
  }
}

// Every kernel's example, and qgemm per channel and without a bias.
std::vector<std::pair<const Kernel*, std::map<std::string, std::string>>> example_cases() {
  std::vector<std::pair<const Kernel*, std::map<std::string, std::string>>> cases;
  for (const auto& k : registry()) cases.emplace_back(&k, k.example);
  const Kernel* qgemm = find_kernel("qgemm");
  cases.push_back({qgemm, {{"m", "9"}, {"n", "1"}, {"k", "33"}, {"per-channel", "true"}}});
  cases.push_back({qgemm, {{"m", "9"}, {"n", "5"}, {"k", "33"}, {"no-bias", "true"}}});
  return cases;
}

// The problem `given` makes on mini; null, with the failure recorded, when it makes none.
std::unique_ptr<Problem> mini_problem(const Kernel* kernel, const std::map<std::string, std::string>& given) {
  if (!kernel) {
    ADD_FAILURE() << "no such kernel";
    return nullptr;
  }
  const machine::MachineConfig mini = testing::config("mini");
  Result<Options> options = parse_options(kernel->options, given);
  auto problem = options.ok() ? kernel->make_problem(options.value(), mini)
                              : Result<std::unique_ptr<Problem>>(options.errors());
  if (!problem.ok()) {
    ADD_FAILURE() << kernel->name << ": " << problem.errors().front().message();
    return nullptr;
  }
  return std::move(problem.value());
}

// A timing-only run asks only for input_tensors(): they must be exactly the tensors inputs() fills.
TEST(KernelRegistry, InputTensorsNameExactlyWhatInputsFills) {
  for (const auto& [kernel, given] : example_cases()) {
    const std::unique_ptr<Problem> problem = mini_problem(kernel, given);
    if (!problem) continue;
    std::set<std::string> filled;
    for (const auto& [name, bytes] : problem->inputs()) filled.insert(name);
    const std::vector<std::string> named = problem->input_tensors();
    EXPECT_EQ(std::set<std::string>(named.begin(), named.end()), filled) << kernel->name;
    EXPECT_EQ(named.size(), filled.size()) << kernel->name;
  }
}

// take_inputs() may hand over what a problem holds, but the bytes are inputs()' and the problem
// still answers reference() (a seeded qgemm draws its operands again).
TEST(KernelRegistry, TakeInputsEqualsInputsAndLeavesTheReference) {
  for (const auto& [kernel, given] : example_cases()) {
    const std::unique_ptr<Problem> problem = mini_problem(kernel, given), same = mini_problem(kernel, given);
    if (!problem || !same) continue;
    EXPECT_EQ(problem->take_inputs(), same->inputs()) << kernel->name;
    const auto taken = problem->reference(), kept = same->reference();
    ASSERT_EQ(taken.ok(), kept.ok()) << kernel->name;
    if (kept.ok()) {
      EXPECT_EQ(taken.value(), kept.value()) << kernel->name;
    }
  }
}

TEST(KernelRegistry, EveryKernelWritesItsOutputWithOut) {
  for (const auto& k : registry()) {
    std::string out = testing::temp_path(k.name + "-out.npy");
    std::vector<std::string> args = example_args(k);
    args.insert(args.end(), {"--quiet", "--out", out});
    auto r = run_treesim(args);
    ASSERT_EQ(r.exit_code, 0) << k.name << "\n" << r.err;
    io::NpyArray a = io::read_npy(out);
    EXPECT_FALSE(a.shape.empty()) << k.name;
  }
}

TEST(KernelRegistry, PlanPrintsThePlanAndRunsNothing) {
  for (const auto& k : registry()) {
    std::string report = testing::temp_path(k.name + "-plan.json");
    std::vector<std::string> args = example_args(k);
    args.insert(args.end(), {"--plan", "--report", report});
    auto r = run_treesim(args);
    ASSERT_EQ(r.exit_code, 0) << k.name << "\n" << r.err;
    EXPECT_EQ(r.out.rfind("plan:", 0), 0u) << k.name << "\n" << r.out;
    EXPECT_FALSE(std::ifstream(report).good()) << k.name;
  }
}

TEST(KernelRegistry, RunHelpListsEveryKernel) {
  auto r = run_treesim({"run", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const auto& k : registry())
    EXPECT_NE(r.out.find(k.name), std::string::npos) << k.name << "\n" << r.out;
}

TEST(KernelRegistry, UnknownKernelIsAOneLineError) {
  auto r = run_treesim({"run", "no-such-kernel", "--machine", source_path("configs/mini.yaml")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(one_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("no-such-kernel"), std::string::npos) << r.err;
}

TEST(KernelRegistry, BadOptionValuesAreOneLineErrorsNamingTheOption) {
  for (const auto& k : registry()) {
    for (const auto& spec : k.options) {
      std::string bad;
      if (spec.kind == OptionKind::kUnsigned) bad = "-3";
      if (spec.kind == OptionKind::kChoice) bad = "no-such-choice";
      if (bad.empty()) continue;
      std::vector<std::string> args = example_args(k);
      args.insert(args.end(), {option_flag(spec.name), bad});
      auto r = run_treesim(args);
      EXPECT_EQ(r.exit_code, 2) << k.name << " " << spec.name;
      EXPECT_TRUE(one_line(r.err)) << k.name << " " << spec.name << "\n" << r.err;
      EXPECT_NE(r.err.find(option_flag(spec.name)), std::string::npos) << r.err;
    }
  }
}

TEST(KernelRegistry, AbsurdSizesAreRefusedByName) {
  // Every unsigned size option of the example, made far larger than any DRAM.
  for (const auto& k : registry()) {
    for (const auto& [name, value] : k.example) {
      const OptionSpec* spec = nullptr;
      for (const auto& s : k.options)
        if (s.name == name) spec = &s;
      if (!spec || spec->kind != OptionKind::kUnsigned || name == "seed") continue;
      std::vector<std::string> args = example_args(k);
      args.insert(args.end(), {option_flag(name), "10000000000000"});
      auto r = run_treesim(args);
      EXPECT_EQ(r.exit_code, 2) << k.name << " " << name << "\n" << r.err;
      EXPECT_TRUE(one_line(r.err)) << r.err;
      EXPECT_EQ(r.err.rfind("treesim: " + option_flag(name) + ": ", 0), 0u) << r.err;
    }
  }
}

}  // namespace
}  // namespace treesim::kernels
