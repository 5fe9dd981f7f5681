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

// Inputs a hostile user makes: each is one line, exit 2, no traceback and no chart, with what it
// holds echoed escaped (a cell can forge no line of output and no terminal escape).
TEST(PlotInput, BadFilesAreOneLineEscapedAndWriteNothing) {
  const std::string header = "index,lm,status,cycles\n";
  struct Case {
    std::string kind, file, text, fragment;
  };
  const std::vector<Case> cases = {
      {"line", "latin1.csv", header + "0,\xff,ok,5\n", "latin1.csv: not UTF-8 text (byte 0xFF at offset 25)"},
      {"line", "bigcell.csv", header + "0," + std::string(200000, 'x') + ",ok,5\n",
       "bigcell.csv: line 2: not a CSV a sweep writes (field larger than field limit (131072))"},
      {"line", "forged.csv", header + "0,1,ok,\"1\ntreesim: FAKE \x1b[2J\"\n",
       "point 0: column 'cycles' is not a number ('1\\ntreesim: FAKE \\x1B[2J')"},
      {"line", "short.csv", header + "0,1\n", "short.csv: point 0: expected 4 cells, as the header has"},
      {"line", "nan.csv", header + "0,1,ok,nan\n", "column 'cycles' is not a number ('nan')"},
      {"traffic", "strings.json", R"({"levels": {"L2B": {"down_sent_bytes": "12"}}})",
       "strings.json: levels.L2B.down_sent_bytes: expected a non-negative number, got \"12\""},
      {"traffic", "level.json", R"({"levels": {"L2B": 5}})",
       "level.json: levels.L2B: expected an object, got 5"},
      {"layers", "phases.json", R"({"phases": {"layer0": {"cycles": [1]}}})",
       "phases.json: phases.layer0.cycles: expected a non-negative number, got [1]"},
      {"layers", "deep.json", std::string(100000, '[') + std::string(100000, ']'), "deep.json: not JSON"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string in = write_temp_file(c.file, c.text);
    const std::string out = temp_path("bad-" + c.file + ".png");
    std::vector<std::string> args{"plot", c.kind, in, "--out", out};
    if (c.kind == "line") args.insert(args.end(), {"--x", "lm"});
    const CliResult r = run_treesim(args);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind("treesim: plot: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(c.fragment), std::string::npos) << "expected: " << c.fragment << "\n got: " << r.err;
    EXPECT_EQ(r.err.find("Traceback"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << "a raw escape reached the terminal";
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}

}  // namespace
}  // namespace treesim::testing
