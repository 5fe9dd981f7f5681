// `treesim sweep`: the points of a spec, results.csv, resuming after a kill, failed points.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

// A CSV without quoted commas in the fields read here, as rows of name → value.
std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::istringstream in(read_text(path));
  std::string line;
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  auto split = [](const std::string& l) {
    std::vector<std::string> out;
    std::string field;
    bool quoted = false;
    for (char c : l) {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        out.push_back(field);
        field.clear();
      } else {
        field += c;
      }
    }
    out.push_back(field);
    return out;
  };
  while (std::getline(in, line)) {
    if (header.empty()) {
      header = split(line);
      continue;
    }
    std::vector<std::string> fields = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(row);
  }
  return rows;
}

std::string mini_spec(const std::string& name, const std::string& grid, const std::string& options) {
  return write_temp_file(name, fmt::format("machine: {}\nkernel: qgemm\noptions: {{ {} }}\ngrid:\n{}",
                                           source_path("configs/mini.yaml"), options, grid));
}

TEST(Sweep, WorkedSpecGivesOneCsvRowPerPointWithTheFiguresOfItsRun) {
  const std::string spec = source_path("configs/sweeps/mncore-die-lm-dram-mac.yaml");
  const std::string out = temp_path("die-sweep");
  CliResult r = run_treesim({"sweep", spec, "--out", out, "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_csv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 24u);
  // The grid's product in the order written, the last axis fastest.
  const std::vector<std::string> lm{"16KiB", "32KiB"}, dram{"128", "256", "512"},
      mac{"16", "32", "64", "128"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    EXPECT_EQ(row.at("index"), std::to_string(i));
    EXPECT_EQ(row.at("levels[PE].memory_bytes"), lm[i / 12]);
    EXPECT_EQ(row.at("dram.bytes_per_cycle"), dram[i / 4 % 3]);
    EXPECT_EQ(row.at("pe.mac.int8_macs_per_cycle"), mac[i % 4]);
    EXPECT_EQ(row.at("status"), "ok");
    EXPECT_EQ(row.at("error"), "");
    EXPECT_GE(std::stoull(row.at("cycles")), std::stoull(row.at("roofline_cycles")));
    EXPECT_GE(std::stoull(row.at("macs")), 1024ull * 1024 * 1024);  // tiles may pad the problem
    EXPECT_DOUBLE_EQ(std::stod(row.at("peak_ops_per_second")), 2.0 * 2048 * std::stod(mac[i % 4]) * 1e9);
    EXPECT_DOUBLE_EQ(std::stod(row.at("dram_bytes_per_second")), std::stod(dram[i / 4 % 3]) * 1e9);
  }
  // A point's figures are those of `treesim run` on the same machine, run here on its own.
  for (std::size_t i : {0u, 13u, 23u}) {
    const std::string machine = out + fmt::format("/points/{:04}.yaml", i);
    const std::string report = temp_path(fmt::format("die-point-{}.json", i));
    CliResult one = run_treesim({"run", "qgemm", "--machine", machine, "--m", "1024", "--n", "1024", "--k",
                                 "1024", "--timing-only", "-q", "--report", report});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const nlohmann::json j = nlohmann::json::parse(read_text(report));
    EXPECT_EQ(rows[i].at("cycles"), j["cycles"].dump());
    EXPECT_EQ(rows[i].at("bound"), j["roofline"]["resource"].get<std::string>());
    EXPECT_EQ(rows[i].at("dram_read_bytes"), j["dram"]["read_bytes"].dump());
    EXPECT_EQ(rows[i].at("PE_down_delivered_bytes"), j["levels"]["PE"]["down_delivered_bytes"].dump());
    EXPECT_EQ(nlohmann::json::parse(read_text(out + fmt::format("/points/{:04}.json", i))), j);
  }
}

TEST(Sweep, ListPrintsThePointsGridThenZipAndRunsNothing) {
  const std::string spec = write_temp_file(
      "list.yaml",
      fmt::format("machine: {}\nkernel: qgemm\noptions: {{m: 8, n: 8, k: 8}}\ngrid:\n"
                  "  dram.bytes_per_cycle: [32, 64]\nzip:\n  pe.mac.int8_macs_per_cycle: [16, 32]\n"
                  "  seed: [1, 2]\n",
                  source_path("configs/mini.yaml")));
  CliResult r = run_treesim({"sweep", spec, "--list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "index,dram.bytes_per_cycle,pe.mac.int8_macs_per_cycle,seed\n"
            "0,32,16,1\n1,32,32,2\n2,64,16,1\n3,64,32,2\n");
}

TEST(Sweep, FailedPointIsRecordedWithItsErrorAndTheOthersComplete) {
  const std::string spec =
      mini_spec("bad-point.yaml", "  levels[L1B].fanout: [2, 0, 1]\n", "m: 8, n: 8, k: 8, timing-only: true");
  const std::string out = temp_path("bad-point");
  CliResult r = run_treesim({"sweep", spec, "--out", out, "--jobs", "2"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("treesim: sweep: 1 of 3 points failed"), std::string::npos) << r.err;
  const auto rows = read_csv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].at("status"), "ok");
  EXPECT_EQ(rows[2].at("status"), "ok");
  EXPECT_EQ(rows[1].at("status"), "failed");
  EXPECT_EQ(rows[1].at("cycles"), "");
  EXPECT_EQ(rows[1].at("error"), out +
                                     "/points/0001.yaml:6:25: field 'levels[1].fanout': expected a positive "
                                     "integer, got '0'");
  // A re-run does not run the failed point again: its error is the machine's, not chance.
  CliResult again = run_treesim({"sweep", spec, "--out", out});
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("3 points, 3 already done, 0 to run"), std::string::npos) << again.err;
}

TEST(Sweep, RetryFailedRunsOnlyTheFailedPointsAgain) {
  const std::string spec =
      mini_spec("retry.yaml", "  levels[L1B].fanout: [2, 0, 1]\n", "m: 8, n: 8, k: 8, timing-only: true");
  const std::string out = temp_path("retry");
  EXPECT_EQ(run_treesim({"sweep", spec, "--out", out, "--jobs", "2"}).exit_code, 1);
  CliResult again = run_treesim({"sweep", spec, "--out", out, "--retry-failed"});
  EXPECT_EQ(again.exit_code, 1);  // the machine still cannot take a fan-out of 0
  EXPECT_NE(again.err.find("3 points, 2 already done, 1 to run"), std::string::npos) << again.err;
  EXPECT_NE(again.err.find("point 0001 FAILED"), std::string::npos) << again.err;
  EXPECT_EQ(read_csv(out + "/results.csv")[0].at("status"), "ok");
}

std::size_t records_in(const std::string& dir) {
  std::size_t n = 0;
  if (!std::filesystem::exists(dir + "/points")) return 0;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/points"))
    n += e.path().string().size() > 12 &&
         e.path().string().compare(e.path().string().size() - 12, 12, ".result.json") == 0;
  return n;
}

TEST(Sweep, KilledSweepReRunRunsOnlyTheMissingPoints) {
  const std::string spec =
      mini_spec("resume.yaml", "  seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]\n", "m: 64, n: 64, k: 256");
  const std::string out = temp_path("resume");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(126);
    execl(TREESIM_BINARY, TREESIM_BINARY, "sweep", spec.c_str(), "--out", out.c_str(), "--jobs", "1",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Kill the sweep (SIGKILL: no chance to tidy up) once a few points are recorded.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (records_in(out) < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const std::size_t done = records_in(out);
  ASSERT_GE(done, 3u);
  ASSERT_LT(done, 12u) << "the sweep ended before it was killed: make its points slower";
  EXPECT_FALSE(std::filesystem::exists(out + "/results.csv"));
  std::map<std::string, std::filesystem::file_time_type> before;
  for (const auto& e : std::filesystem::directory_iterator(out + "/points"))
    if (e.path().string().find(".result.json") != std::string::npos)
      before[e.path().string()] = std::filesystem::last_write_time(e.path());

  CliResult r = run_treesim({"sweep", spec, "--out", out, "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(fmt::format("12 points, {} already done, {} to run", done, 12 - done)),
            std::string::npos)
      << r.err;
  for (const auto& [path, time] : before) EXPECT_EQ(std::filesystem::last_write_time(path), time) << path;
  // The same results as a sweep never interrupted.
  const std::string fresh = temp_path("resume-fresh");
  ASSERT_EQ(run_treesim({"sweep", spec, "--out", fresh}).exit_code, 0);
  EXPECT_EQ(read_text(out + "/results.csv"), read_text(fresh + "/results.csv"));
}

TEST(Sweep, InterruptStopsTheRunningPointsRecordsNoneOfThemAndExits130) {
  const std::string spec = mini_spec("interrupt.yaml", "  seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]\n",
                                     "m: 64, n: 64, k: 256");
  const std::string out = temp_path("interrupt");
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (!freopen("/dev/null", "w", stderr) || !freopen("/dev/null", "w", stdout)) _exit(126);
    execl(TREESIM_BINARY, TREESIM_BINARY, "sweep", spec.c_str(), "--out", out.c_str(), "--jobs", "2",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (records_in(out) < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill(pid, SIGINT);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::size_t done = records_in(out);
  ASSERT_LT(done, 12u) << "the sweep ended before it was interrupted: make its points slower";
  EXPECT_FALSE(std::filesystem::exists(out + "/results.csv"));
  // Nothing half-written: no temporaries of the stopped points, no stderr captures.
  for (const auto& e : std::filesystem::directory_iterator(out + "/points")) {
    const std::string name = e.path().filename().string();
    EXPECT_NE(name[0], '.') << name;
    EXPECT_EQ(name.find(".stderr"), std::string::npos) << name;
  }
  CliResult r = run_treesim({"sweep", spec, "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(fmt::format("12 points, {} already done, {} to run", done, 12 - done)),
            std::string::npos)
      << r.err;
}

TEST(Sweep, FolderOfAnotherSweepIsRefused) {
  const std::string out = temp_path("other");
  const std::string a = mini_spec("a.yaml", "  seed: [1]\n", "m: 8, n: 8, k: 8, timing-only: true");
  const std::string b = mini_spec("b.yaml", "  seed: [1]\n", "m: 16, n: 8, k: 8, timing-only: true");
  ASSERT_EQ(run_treesim({"sweep", a, "--out", out}).exit_code, 0);
  CliResult r = run_treesim({"sweep", b, "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: " + out +
                       "/sweep.json: this folder holds the results of another sweep (other kernel options): "
                       "choose another --out\n");
}

TEST(Sweep, AGrownGridKeepsTheDonePointsAndRunsOnlyTheNewOnes) {
  const std::string out = temp_path("grown");
  const std::string opts = "m: 8, n: 8, k: 8, timing-only: true";
  ASSERT_EQ(run_treesim({"sweep", mini_spec("g2.yaml", "  seed: [1, 2]\n", opts), "--out", out}).exit_code,
            0);
  CliResult r = run_treesim({"sweep", mini_spec("g3.yaml", "  seed: [1, 3, 2]\n", opts), "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("sweep: the grid changed since " + out +
                       "/sweep.json was written: 2 points kept, 1 new, 0 no longer in the grid\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("3 points, 2 already done, 1 to run"), std::string::npos) << r.err;
  const auto rows = read_csv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(rows[i].at("status"), "ok");
  EXPECT_EQ(rows[1].at("seed"), "3");
}

TEST(Sweep, AShrunkGridMovesTheDroppedPointsAside) {
  const std::string out = temp_path("shrunk");
  const std::string opts = "m: 8, n: 8, k: 8, timing-only: true";
  ASSERT_EQ(run_treesim({"sweep", mini_spec("s3.yaml", "  seed: [1, 2, 3]\n", opts), "--out", out}).exit_code,
            0);
  CliResult r = run_treesim({"sweep", mini_spec("s2.yaml", "  seed: [3, 1]\n", opts), "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("2 points kept, 0 new, 1 no longer in the grid (their files moved to " + out + "/removed)"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("2 points, 2 already done, 0 to run"), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(out + "/removed/0001.result.json"));  // seed 2 was point 1
  const auto rows = read_csv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("seed"), "3");
  EXPECT_EQ(rows[0].at("status"), "ok");
}

TEST(Sweep, AMisspeltMachineFieldStopsTheSweepBeforeAnyPointRunsAndWritesNothing) {
  const std::string spec =
      write_temp_file("typo.yaml", "machine: " + source_path("configs/mini.yaml") +
                                       "\nkernel: qgemm\noptions: {m: 8, n: 8, k: 8}\ngrid:\n"
                                       "  levels[PE].memory_byte: [16KiB, 32KiB]\n");
  const std::string out = temp_path("typo-out");
  CliResult r = run_treesim({"sweep", spec, "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown field 'levels[3].memory_byte'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_FALSE(std::filesystem::exists(out));
}

// run mlp over machines: each point's figures are its run's, its accuracy and cycles per image
// included, and a batch axis is an option of run mlp.
TEST(Sweep, AnMlpSweepRunsEveryPointWithItsAccuracyAndCyclesPerImage) {
  const std::string spec =
      write_temp_file("mlp-sweep.yaml",
                      fmt::format("machine: {}\nkernel: mlp\noptions: {{ model: {}, data: {}, images: 16 }}\n"
                                  "grid:\n  levels[MAB].down_bytes_per_cycle: [8, 32]\n  batch: [8, 16]\n",
                                  source_path("configs/mini.yaml"), source_path("tests/data/mlp/int8"),
                                  source_path("tests/data/mlp/t10k-16")));
  const std::string out = temp_path("mlp-sweep");
  CliResult r = run_treesim({"sweep", spec, "--out", out, "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = read_csv(out + "/results.csv");
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string machine = out + fmt::format("/points/{:04}.yaml", i);
    const std::string report = temp_path(fmt::format("mlp-point-{}.json", i));
    CliResult one = run_treesim({"run", "mlp", "--model", source_path("tests/data/mlp/int8"), "--data",
                                 source_path("tests/data/mlp/t10k-16"), "--images", "16", "--batch",
                                 rows[i].at("batch"), "--machine", machine, "-q", "--report", report});
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const nlohmann::json j = nlohmann::json::parse(read_text(report));
    EXPECT_EQ(rows[i].at("status"), "ok");
    EXPECT_EQ(rows[i].at("cycles"), j["cycles"].dump());
    EXPECT_EQ(rows[i].at("accuracy"), j["accuracy"].dump());
    EXPECT_EQ(rows[i].at("cycles_per_image"), j["cycles_per_image"].dump());
    std::uint64_t macs = 0;
    for (const auto& l : j["layers"]) macs += l["macs"].get<std::uint64_t>();
    EXPECT_EQ(rows[i].at("macs"), std::to_string(macs));
  }
  // A slower MAB link is never faster.
  EXPECT_GE(std::stoull(rows[0].at("cycles")), std::stoull(rows[2].at("cycles")));
  EXPECT_GE(std::stoull(rows[1].at("cycles")), std::stoull(rows[3].at("cycles")));
}

struct BadSpec {
  std::string name, text, error;
};

void PrintTo(const BadSpec& c, std::ostream* os) { *os << c.name; }

class SweepBadSpec : public ::testing::TestWithParam<BadSpec> {};

TEST_P(SweepBadSpec, IsOneLineNamingTheSpecAndWhere) {
  const BadSpec& c = GetParam();
  const std::string spec =
      write_temp_file(c.name + ".yaml", fmt::format(fmt::runtime(c.text), source_path("configs/mini.yaml")));
  CliResult r = run_treesim({"sweep", spec, "--list"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "treesim: " + spec + c.error + "\n");
  EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Cases, SweepBadSpec,
    ::testing::Values(
        BadSpec{"unknown_key", "machine: {}\nkernel: qgemm\ngird: {{}}\n",
                ":3:1: unknown key 'gird' (expected one of: machine, kernel, options, grid, zip)"},
        BadSpec{"no_level", "machine: {}\nkernel: qgemm\ngrid:\n  levels[L3B].fanout: [1]\n",
                ":1:1: machine field 'levels[L3B].fanout': no entry of 'levels' is named 'L3B' (the names "
                "are L2B, "
                "L1B, MAB, PE) (in " +
                    source_path("configs/mini.yaml") + ")"},
        BadSpec{
            "unknown_option", "machine: {}\nkernel: qgemm\ngrid:\n  mm: [1]\n",
            ":4:3: 'mm' is neither a machine field (name, clock_ghz, dram.*, levels[L].*, pe.*, energy.*) "
            "nor an "
            "option of qgemm (m, n, k, dtype-a, dtype-b, dtype-out, a-zero, b-zero, out-zero, per-channel, "
            "rounding, no-bias, act, seed, a, b, bias, quant, layout-a, layout-b, layout-c, out-dtype, "
            "timing-only, "
            "verify)"},
        BadSpec{"zip_lengths", "machine: {}\nkernel: qgemm\nzip:\n  m: [1, 2]\n  n: [1]\n",
                ":4:3: zip: the lists must have equal lengths ('m' has 2, 'n' has 1)"},
        BadSpec{"misspelt_machine_field",
                "machine: {}\nkernel: qgemm\ngrid:\n  dram.bytes_per_cyle: [32, 64]\n",
                ":1:1: machine: unknown field 'dram.bytes_per_cyle' (did you mean 'bytes_per_cycle'? "
                "expected one of: banked, bytes, "
                "bytes_per_cycle, interleave_bytes, latency_cycles, model, per, placement) (in " +
                    source_path("configs/mini.yaml") + ")"},
        BadSpec{"flag_value", "machine: {}\nkernel: qgemm\noptions: {{timing-only: yes}}\n",
                ":3:24: 'timing-only' is a flag: expected true or false, got 'yes'"},
        BadSpec{"twice", "machine: {}\nkernel: qgemm\noptions: {{m: 4}}\ngrid: {{m: [1, 2]}}\n",
                ":4:8: 'm' is given twice (in options, grid or zip)"},
        BadSpec{
            "mlp_verify", "machine: {}\nkernel: mlp\noptions: {{verify: true}}\n",
            ":3:11: 'verify' is neither a machine field (name, clock_ghz, dram.*, levels[L].*, pe.*, "
            "energy.*) nor an option of mlp (model, data, images, batch, plan-file, chain-plan, via-dram, "
            "timing-only)"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace treesim::testing
