// A verified kernel run through the treesim binary, as the CLI tests of qgemm, tgemm and spmv/spmm
// make it: `treesim run KERNEL --machine configs/MACHINE.yaml --verify --quiet --report R EXTRA...`.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace treesim::testing {

// The options joined by spaces, for failure messages.
inline std::string joined(const std::vector<std::string>& options) {
  std::string all;
  for (const auto& a : options) all += a + " ";
  return all;
}

// configs/mini.yaml with PE LMs of `bytes` ("768", "1KiB"), written to a temp file: its path.
inline std::string mini_with_lm(const std::string& bytes) {
  std::string text = read_text(source_path("configs/mini.yaml"));
  const std::string from = "memory_bytes: 64KiB";
  text.replace(text.find(from), from.size(), "memory_bytes: " + bytes);
  const std::string path = temp_path("mini-lm-" + bytes + ".yaml");
  std::ofstream(path) << text;
  return path;
}

// Expects exit 0 and a bit-exact verify; returns the report, or null when the run failed.
inline nlohmann::json run_verified(const std::string& kernel, const std::string& machine,
                                   const std::vector<std::string>& extra) {
  static int n = 0;
  const std::string report = temp_path(kernel + "-" + std::to_string(n++) + ".json");
  std::vector<std::string> args{
      "run",      kernel,    "--machine", source_path("configs/" + machine + ".yaml"),
      "--verify", "--quiet", "--report",  report};
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult r = run_treesim(args);
  EXPECT_EQ(r.exit_code, 0) << machine << " " << joined(extra) << "\n" << r.err;
  if (r.exit_code != 0) return {};
  nlohmann::json j = nlohmann::json::parse(read_text(report));
  EXPECT_EQ(j["verify"]["ok"], true) << joined(extra) << j["verify"].dump();
  return j;
}

}  // namespace treesim::testing
