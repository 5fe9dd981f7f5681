// `treesim layout`: the JSON shapes scripts rely on, and exit status 2 with code and caret for
// invalid layouts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace treesim::testing {
namespace {

using nlohmann::json;

const std::string kT1 = "((4_PE, 3:8), (8:1))";

std::string mini() { return source_path("configs/mini.yaml"); }

TEST(LayoutCli, ShowJsonShape) {
  CliResult r = run_treesim({"layout", "show", kT1, "--shape", "12,8", "--machine", mini(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["canonical"], kT1);
  EXPECT_EQ(j["footprint_bytes_per_unit"], 24);
  EXPECT_EQ(j["replication"], 8);  // mini has 2 L1B × 4 MAB; the layout names only PE
  EXPECT_EQ(j["traffic"]["dram_read_bytes"], 96);
  // Down the tree: 96 B to the one L2B, broadcast to 2 L1Bs (192 delivered), each sends 96 to 4
  // MABs (192 sent, 768 delivered), each MAB scatters 96 to its 4 PEs (768 sent and delivered).
  EXPECT_EQ(j["traffic"]["levels"]["L1B"]["down_sent_bytes"], 96);
  EXPECT_EQ(j["traffic"]["levels"]["L1B"]["down_delivered_bytes"], 192);
  EXPECT_EQ(j["traffic"]["levels"]["MAB"]["down_sent_bytes"], 192);
  EXPECT_EQ(j["traffic"]["levels"]["MAB"]["down_delivered_bytes"], 768);
  EXPECT_EQ(j["traffic"]["levels"]["PE"]["down_sent_bytes"], 768);
  EXPECT_TRUE(j["warnings"].is_array());
  EXPECT_TRUE(j["warnings"].empty());
}

TEST(LayoutCli, ShowTextHasGridAndWarnings) {
  CliResult r = run_treesim({"layout", "show", "(10,7)/((3:7, 4_PE), (7:1))", "--machine", mini()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2:14*"), std::string::npos) << r.out;  // padding cell (10,0)
  CliResult w = run_treesim({"layout", "show", "((1_L1B, 1_MAB, 4_PE, 3:8), (8:1))", "--shape", "12,8",
                             "--machine", mini(), "--json"});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  json j = json::parse(w.out);
  ASSERT_EQ(j["warnings"].size(), 2u);
  EXPECT_EQ(j["warnings"][0]["code"], "W01");
  EXPECT_EQ(j["replication"], 1);
}

TEST(LayoutCli, LocateJsonShape) {
  CliResult r = run_treesim({"layout", "locate", kT1, "--shape", "12,8", "--machine",
                             source_path("configs/mncore-board.yaml"), "--index", "5,3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["padding"], false);
  ASSERT_EQ(j["locations"].size(), 2048u);  // every L2B × L1B × MAB
  EXPECT_EQ(j["locations"][0],
            json::parse(R"({"units": {"L2B": 0, "L1B": 0, "MAB": 0, "PE": 1}, "addr": 19})"));
  EXPECT_EQ(j["locations"][2047]["units"]["L2B"], 15);

  CliResult lanes = run_treesim({"layout", "locate", "((3_Time, 4_PE), (8:1))", "--shape", "12,8",
                                 "--machine", mini(), "--index", "9,5", "--json"});
  ASSERT_EQ(lanes.exit_code, 0) << lanes.err;
  EXPECT_EQ(json::parse(lanes.out)["locations"][0]["time"], 2);
  CliResult pad = run_treesim(
      {"layout", "locate", "(10,7)/((3:7, 4_PE), (7:1))", "--machine", mini(), "--index", "10,0", "--json"});
  ASSERT_EQ(pad.exit_code, 0) << pad.err;
  EXPECT_EQ(json::parse(pad.out)["padding"], true);
}

TEST(LayoutCli, InverseJsonShape) {
  CliResult r = run_treesim({"layout", "inverse", kT1, "--shape", "12,8", "--machine", mini(), "--unit",
                             "L2B=0,L1B=0,MAB=0,PE=2", "--addr", "13", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out), json::parse(R"({"kind": "element", "index": [7, 5], "replica": 0})"));
  CliResult pad = run_treesim({"layout", "inverse", "(10,7)/((3:7, 4_PE), (7:1))", "--machine", mini(),
                               "--unit", "PE=3", "--addr", "15", "--json"});
  EXPECT_EQ(json::parse(pad.out)["kind"], "padding");
  CliResult empty = run_treesim({"layout", "inverse", kT1, "--shape", "12,8", "--machine", mini(), "--pe",
                                 "2", "--addr", "24", "--json"});
  EXPECT_EQ(json::parse(empty.out), json::parse(R"({"kind": "empty"})"));
  CliResult outside = run_treesim(
      {"layout", "inverse", kT1, "--shape", "12,8", "--machine", mini(), "--unit", "PE=4", "--addr", "0"});
  EXPECT_EQ(outside.exit_code, 2);
  EXPECT_NE(outside.err.find("E151"), std::string::npos);
}

TEST(LayoutCli, ConvertJson) {
  CliResult same =
      run_treesim({"layout", "convert", kT1, kT1, "--shape", "12,8", "--machine", mini(), "--json"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  json s = json::parse(same.out);
  EXPECT_EQ(s["copies"], 0);
  EXPECT_EQ(s["link_bytes"], 0);
  CliResult r =
      run_treesim({"layout", "convert", "((1_L1B, 1_MAB, 4_PE, 3:8), (8:1))",
                   "((1_L1B, 1_MAB, 3:8, 4_PE), (8:1))", "--shape", "12,8", "--machine", mini(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["in_place"], 16);
  EXPECT_EQ(j["copies_by_lca"]["MAB"], 64);  // see tests/sim/layout/plans_test.cpp
  EXPECT_EQ(j["copies_by_lca"]["PE"], 16);
}

// Invalid layouts: exit status 2, the code and a caret line on stderr, nothing on stdout.
TEST(LayoutCli, InvalidLayoutsExitTwoWithCaret) {
  struct Bad {
    std::string layout, code, caret;
  };
  const Bad bad[] = {
      {"((4_PE, 4:8), (8:1))", "E040", " ^^^^^^^^^^^"},
      {"((12:1), (8_PE))", "E050", "          ^^^^"},
      {"((4_PE, 3:8), (8:2))", "E060", "               ^^^"},
      {"((4_XPE, 3:8), (8:1))", "E010", "   ^^^^"},
      {"((4_PE, 3:8), (8:1)", "E002", "                   ^"},
      {"((4_PE 3:8),(8:1))", "E001", "       ^"},
      {"((0_PE, 3:8), (8:1))", "E020", "  ^"},
      {"((4_PE:1, 3), (8:1))", "E110", "          ^"},
      {"((4_PE, 3:8), (8:1); B@[PE])", "E120", "                        ^^"},
      {"((12:8))", "E030", "^^^^^^^^"},
      {"((12:8), (4:2, 2_W))", "E052", "               ^^^"},
      {"", "E001", "^"},
  };
  for (const Bad& b : bad) {
    CliResult r = run_treesim({"layout", "show", b.layout, "--shape", "12,8", "--machine", mini()});
    EXPECT_EQ(r.exit_code, 2) << b.layout << "\n" << r.err;
    EXPECT_NE(r.err.find("\n" + b.caret + "\n"), std::string::npos) << b.layout << "\n" << r.err;
    EXPECT_NE(r.err.find(b.code + " "), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  CliResult time = run_treesim(
      {"layout", "convert", "((3_Time, 4_PE), (8:1))", kT1, "--shape", "12,8", "--machine", mini()});
  EXPECT_EQ(time.exit_code, 2);
  EXPECT_NE(time.err.find("E140"), std::string::npos);
  CliResult dtype =
      run_treesim({"layout", "show", kT1, "--shape", "12,8", "--machine", mini(), "--dtype", "int4"});
  EXPECT_EQ(dtype.exit_code, 2);
  CliResult index =
      run_treesim({"layout", "locate", kT1, "--shape", "12,8", "--machine", mini(), "--index", "12,0"});
  EXPECT_EQ(index.exit_code, 2);
  EXPECT_NE(index.err.find("E150"), std::string::npos);
}

TEST(LayoutCli, DtypeScalesBytes) {
  CliResult r = run_treesim(
      {"layout", "show", kT1, "--shape", "12,8", "--machine", mini(), "--dtype", "float32", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["footprint_bytes_per_unit"], 96);  // 24 addresses × 4 B
  EXPECT_EQ(j["traffic"]["dram_read_bytes"], 384);
}

}  // namespace
}  // namespace treesim::testing
