// `treesim plot`: every kind of chart renders to a PNG of the documented size (or an SVG), and bad
// input is one line with no file written. The sweep plotted is small (mini, timing only).
#include <filesystem>

#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

// A PNG file: its 8-byte signature, then the IHDR chunk with the width and height (big-endian).
struct PngSize {
  bool png = false;
  unsigned width = 0, height = 0;
};
PngSize png_size(const std::string& bytes) {
  PngSize s;
  s.png = bytes.size() > 24 && bytes.compare(0, 8, "\x89PNG\r\n\x1a\n", 8) == 0 &&
          bytes.compare(12, 4, "IHDR") == 0;
  auto be32 = [&](std::size_t at) {
    unsigned v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(bytes[at + i]);
    return v;
  };
  if (s.png) {
    s.width = be32(16);
    s.height = be32(20);
  }
  return s;
}

class Plot : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string spec = write_temp_file(
        "plot-sweep.yaml",
        "machine: " + source_path("configs/mini.yaml") +
            "\nkernel: qgemm\noptions: {m: 32, n: 32, k: 64, timing-only: true}\n"
            "grid:\n  dram.bytes_per_cycle: [32, 64]\n  pe.mac.int8_macs_per_cycle: [16, 64]\n");
    dir_ = temp_path("plot-sweep");
    const CliResult r = run_treesim({"sweep", spec, "--out", dir_, "--jobs", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static std::string dir_;
};
std::string Plot::dir_;

void expect_png(const std::vector<std::string>& args, const std::string& out) {
  std::vector<std::string> all{"plot"};
  all.insert(all.end(), args.begin(), args.end());
  all.insert(all.end(), {"--out", out});
  const CliResult r = run_treesim(all);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "plot: wrote " + out + "\n");
  const std::string bytes = read_text(out);
  const PngSize s = png_size(bytes);
  EXPECT_TRUE(s.png) << out;
  EXPECT_EQ(s.width, 700u);  // 7 × 4.5 inches at 100 dpi
  EXPECT_EQ(s.height, 450u);
  EXPECT_GT(bytes.size(), 10'000u) << "a chart with so few bytes is most likely empty";
}

TEST_F(Plot, RooflineOfASweepIsA700x450Png) {
  expect_png({"roofline", dir_ + "/results.csv"}, temp_path("roofline.png"));
}

TEST_F(Plot, LineOfCyclesAgainstAFieldIsA700x450Png) {
  expect_png({"line", dir_ + "/results.csv", "--x", "pe.mac.int8_macs_per_cycle"}, temp_path("line.png"));
}

TEST_F(Plot, HeatmapOverTwoFieldsIsA700x450Png) {
  expect_png(
      {"heatmap", dir_ + "/results.csv", "--x", "pe.mac.int8_macs_per_cycle", "--y", "dram.bytes_per_cycle"},
      temp_path("heatmap.png"));
}

TEST_F(Plot, TrafficBarsOfAReportAreA700x450Png) {
  expect_png({"traffic", dir_ + "/points/0000.json"}, temp_path("traffic.png"));
}

TEST_F(Plot, LayersBarsOfAChainReportAreA700x450Png) {
  const std::string report = temp_path("chain-report.json");
  const CliResult r = run_treesim({"run", "chain", "--machine", source_path("configs/mini.yaml"), "--m", "32",
                                   "--widths", "64,128,32", "-q", "--report", report});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_png({"layers", report}, temp_path("layers.png"));
}

TEST_F(Plot, LayersOfAReportWithoutLayersIsOneLineAndWritesNothing) {
  const std::string out = temp_path("no-layers.png");
  const CliResult r = run_treesim({"plot", "layers", dir_ + "/points/0000.json", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "treesim: plot: " + dir_ +
                "/points/0000.json: not a network report (a run chain report with 'phases' or a run mlp "
                "report)\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(Plot, SvgIsWrittenWhenTheNameSaysSo) {
  const std::string out = temp_path("line.svg");
  const CliResult r = run_treesim({"plot", "line", dir_ + "/results.csv", "--x", "dram.bytes_per_cycle",
                                   "--y", "util_mac", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = read_text(out);
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("<svg"), std::string::npos);
}

TEST_F(Plot, RooflineNamesEveryCeilingThatCanBind) {
  // The MAC array, DRAM and each of mini's levels down and up, by name in the SVG's text.
  const std::string out = temp_path("roofline.svg");
  const CliResult r = run_treesim({"plot", "roofline", dir_ + "/results.csv", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = read_text(out);
  for (const char* name :
       {"MAC", "DRAM", "L2B.down", "L2B.up", "L1B.down", "L1B.up", "MAB.down", "MAB.up", "PE.down", "PE.up"})
    EXPECT_NE(svg.find(name), std::string::npos) << name;
  // A distinct marker per series: the grid's last field has two values.
  EXPECT_NE(svg.find("pe.mac.int8_macs_per_cycle"), std::string::npos);
}

TEST_F(Plot, UnknownColumnIsOneLineAndWritesNothing) {
  const std::string out = temp_path("nothing.png");
  const CliResult r = run_treesim({"plot", "line", dir_ + "/results.csv", "--x", "cycels", "--out", out});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(
      r.err.rfind("treesim: plot: --x: " + dir_ + "/results.csv has no column 'cycels' (columns: index, ", 0),
      0u)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(Plot, HeatmapWithAThirdVaryingFieldAsksForWhere) {
  const CliResult r =
      run_treesim({"plot", "heatmap", dir_ + "/results.csv", "--x", "pe.mac.int8_macs_per_cycle", "--y",
                   "index", "--out", temp_path("h.png")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "treesim: plot: heatmap: dram.bytes_per_cycle also varies: fix it with --where COLUMN=VALUE\n");
}

}  // namespace
}  // namespace treesim::testing
