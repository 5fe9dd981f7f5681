// The traces of a run tell the truth per unit: a unit that idles while its siblings work has its
// own waveforms (VCD) and its own track (Perfetto JSON); every busy stretch is named by its
// instruction; the JSON is valid trace-event data whose slices are the run's timings; the GTKWave
// save file names only signals the VCD declares.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "models/simulation.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "sim/program/program_text.h"
#include "tests/configs.h"
#include "tests/models/parse.h"
#include "tests/test_support.h"

namespace treesim::models {
namespace {

using nlohmann::json;

using testing::config;

using testing::parse;

// A VCD read back: each `scope.signal` → its identifier, each identifier → its (time, value) changes.
struct Vcd {
  std::map<std::string, std::string> id;
  std::map<std::string, std::vector<std::pair<std::uint64_t, std::string>>> changes;
  // The values `signal` takes (after $dumpvars), in order.
  std::vector<std::string> values(const std::string& signal) const {
    std::vector<std::string> out;
    auto i = id.find(signal);
    if (i == id.end()) return out;
    auto c = changes.find(i->second);
    if (c != changes.end())
      for (const auto& [t, v] : c->second) out.push_back(v);
    return out;
  }
};

Vcd read_vcd(const std::string& path) {
  Vcd v;
  std::istringstream in(testing::read_text(path));
  std::vector<std::string> scope;
  std::string line;
  std::uint64_t now = 0;
  bool body = false;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string a;
    w >> a;
    if (a == "$scope") {
      std::string kind, name;
      w >> kind >> name;
      scope.push_back(name);
    } else if (a == "$upscope") {
      scope.pop_back();
    } else if (a == "$var") {
      std::string type, width, id, name, here;
      w >> type >> width >> id >> name;
      for (const auto& s : scope) here += s + ".";
      v.id[here + name] = id;
    } else if (a == "$enddefinitions") {
      body = true;
    } else if (body && !a.empty() && a[0] == '#') {
      now = std::stoull(a.substr(1));
    } else if (body && !a.empty() && (a[0] == 's' || a[0] == 'b')) {
      std::string id;
      w >> id;
      v.changes[id].push_back({now, a.substr(1)});
    } else if (body && !a.empty() && (a[0] == '0' || a[0] == '1')) {
      v.changes[a.substr(1)].push_back({now, a.substr(0, 1)});
    }
  }
  return v;
}

json read_json(const std::string& path) { return json::parse(testing::read_text(path)); }

// The thread names of `trace` by (pid, tid), and the slices ("X") of each.
std::map<std::string, std::vector<json>> slices_by_thread(const json& trace) {
  std::map<std::pair<int, int>, std::string> names;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") names[{e["pid"], e["tid"]}] = e["args"]["name"];
  std::map<std::string, std::vector<json>> out;
  for (const auto& [key, name] : names) out[name];
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == "X") out[names.at({e["pid"].get<int>(), e["tid"].get<int>()})].push_back(e);
  return out;
}

const char* kHalfLoad =
    "tensor A shape=1024,512\nload tensor=A layout=\"((8_L2B, 8_L1B, 16:8), (16_MAB, 8:1, 4_PE))\"\n";

TEST(Traces, ALoadOverHalfTheL2BsShowsTheOtherHalfIdleInTheVcd) {
  const auto m = config("mncore-board");
  Simulation sim(m);
  SimulationOptions o;
  o.vcd_path = testing::temp_path("half.vcd");
  o.vcd_filter.depth = 2;
  sim.run(parse(kHalfLoad, m), {{"A", std::vector<std::uint8_t>(1024 * 512, 3)}}, o);
  const Vcd v = read_vcd(o.vcd_path);
  for (int u = 0; u < 16; ++u) {
    const std::string unit = "board.L2B_" + std::to_string(u);
    const std::vector<std::string> busy = v.values(unit + ".down_busy"), instr = v.values(unit + ".instr");
    ASSERT_FALSE(busy.empty()) << unit;
    if (u < 8) {
      EXPECT_EQ(busy, (std::vector<std::string>{"0", "1", "0"})) << unit;
      EXPECT_EQ(instr, (std::vector<std::string>{"idle", "load#0:A[0:1024,0:512]", "idle"})) << unit;
    } else {
      EXPECT_EQ(busy, std::vector<std::string>{"0"}) << unit;
      EXPECT_EQ(instr, std::vector<std::string>{"idle"}) << unit;
    }
  }
  // Equal waveforms share an identifier; different ones never do.
  EXPECT_EQ(v.id.at("board.L2B_0.down_busy"), v.id.at("board.L2B_7.down_busy"));
  EXPECT_EQ(v.id.at("board.L2B_8.down_busy"), v.id.at("board.L2B_15.down_busy"));
  EXPECT_NE(v.id.at("board.L2B_0.down_busy"), v.id.at("board.L2B_8.down_busy"));
  EXPECT_NE(v.id.at("board.L2B_0.instr"), v.id.at("board.L2B_8.instr"));
}

TEST(Traces, ALoadOverHalfTheL2BsShowsTheOtherHalfIdleInTheJson) {
  const auto m = config("mncore-board");
  Simulation sim(m);
  SimulationOptions o;
  o.json_path = testing::temp_path("half.json");
  sim.run(parse(kHalfLoad, m), {{"A", std::vector<std::uint8_t>(1024 * 512, 3)}}, o);
  const auto threads = slices_by_thread(read_json(o.json_path));
  // By default one L2B stands for each distinct timeline: the 8 that load and the 8 that idle.
  ASSERT_EQ(threads.count("board.L2B_0.down (and 7 alike)"), 1u);
  ASSERT_EQ(threads.count("board.L2B_8.down (and 7 alike)"), 1u);
  EXPECT_EQ(threads.at("board.L2B_0.down (and 7 alike)").size(), 1u);
  EXPECT_EQ(threads.at("board.L2B_0.down (and 7 alike)")[0]["name"], "load#0:A[0:1024,0:512]");
  EXPECT_TRUE(threads.at("board.L2B_8.down (and 7 alike)").empty());
  // With a unit glob, every matching unit has its own track.
  o.json_path = testing::temp_path("half-all.json");
  o.vcd_filter.units = "board.L2B_*";
  o.vcd_filter.depth = 2;
  sim.run(parse(kHalfLoad, m), {{"A", std::vector<std::uint8_t>(1024 * 512, 3)}}, o);
  const auto all = slices_by_thread(read_json(o.json_path));
  for (int u = 0; u < 16; ++u)
    EXPECT_EQ(all.at("board.L2B_" + std::to_string(u) + ".down").size(), u < 8 ? 1u : 0u) << u;
}

// 96 rows of A over mini's 32 PEs (3 each), B in every PE; C = A·B in int32, copied, stored.
const char* kTracedGemm = R"P(tensor A shape=96,8
tensor B shape=8,8
tensor C shape=96,8 dtype=int32
load tensor=A layout="((2_L1B, 4_MAB, 4_PE, 3:8), (8:1))" lm=0
load tensor=B layout="((8:8), (8:1))" lm=64
mac a=0 b=64 c=128 m=3 n=8 k=8
copy src=128 dst=512 bytes=96
store tensor=C layout="((2_L1B, 4_MAB, 4_PE, 3:8), (8:1))" lm=512
)P";

TEST(Traces, TheInstructionStringNamesEachInstruction) {
  const auto m = config("mini");
  Simulation sim(m);
  SimulationOptions o;
  o.vcd_path = testing::temp_path("names.vcd");
  const program::Program p = parse(kTracedGemm, m);
  SimulationResult r =
      sim.run(p, {{"A", std::vector<std::uint8_t>(96 * 8, 1)}, {"B", std::vector<std::uint8_t>(64, 1)}}, o);
  const Vcd v = read_vcd(o.vcd_path);
  const std::vector<std::string> pe = v.values("board.L2B_0.L1B_0.MAB_0.PE_0.instr");
  EXPECT_EQ(pe, (std::vector<std::string>{"idle", "mac#2:3x8x8", "idle", "copy#3:96B", "idle"}));
  // The board's string passes through the loads and the store (DRAM and the board's ports).
  const std::vector<std::string> board = v.values("board.instr");
  for (const char* label : {"load#0:A[0:96,0:8]", "load#1:B[0:8,0:8]", "store#4:C[0:96,0:8]"})
    EXPECT_NE(std::find(board.begin(), board.end(), label), board.end()) << label;
  // Every PE shows the same lock-step work under one identifier.
  EXPECT_EQ(v.id.at("board.L2B_0.L1B_0.MAB_0.PE_0.mac_busy"),
            v.id.at("board.L2B_0.L1B_1.MAB_2.PE_3.mac_busy"));
}

// The trace-event format (Chrome's "Trace Event Format" document): what each phase must carry.
void check_trace_event_format(const json& doc) {
  ASSERT_TRUE(doc.is_object());
  ASSERT_TRUE(doc.contains("traceEvents") && doc["traceEvents"].is_array());
  const std::set<std::string> metadata = {"process_name", "process_sort_index", "thread_name",
                                          "thread_sort_index"};
  for (const json& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.is_object()) << e;
    ASSERT_TRUE(e.contains("ph") && e["ph"].is_string()) << e;
    ASSERT_TRUE(e.contains("pid") && e["pid"].is_number_integer()) << e;
    ASSERT_TRUE(e.contains("name") && e["name"].is_string()) << e;
    const std::string ph = e["ph"];
    if (ph == "X") {
      for (const char* k : {"ts", "dur"}) ASSERT_TRUE(e.contains(k) && e[k].is_number() && e[k] >= 0) << e;
      ASSERT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << e;
      if (e.contains("args")) {
        ASSERT_TRUE(e["args"].is_object()) << e;
      }
    } else if (ph == "C") {
      ASSERT_TRUE(e.contains("ts") && e["ts"].is_number()) << e;
      ASSERT_TRUE(e.contains("args") && e["args"].is_object() && !e["args"].empty()) << e;
      for (const auto& [k, v] : e["args"].items()) ASSERT_TRUE(v.is_number()) << e;
    } else if (ph == "M") {
      ASSERT_TRUE(metadata.count(e["name"])) << e;
      ASSERT_TRUE(e.contains("args") && e["args"].is_object()) << e;
      if (e["name"] == "thread_name" || e["name"] == "thread_sort_index") {
        ASSERT_TRUE(e.contains("tid") && e["tid"].is_number_integer()) << e;
      }
      if (e["name"] == "process_name" || e["name"] == "thread_name") {
        ASSERT_TRUE(e["args"].contains("name") && e["args"]["name"].is_string()) << e;
      }
    } else {
      FAIL() << "unexpected phase " << ph;
    }
  }
  // Complete slices of one thread must nest (viewers draw them as a stack): here they never overlap.
  std::map<std::pair<int, int>, std::vector<std::pair<std::uint64_t, std::uint64_t>>> spans;
  for (const json& e : doc["traceEvents"])
    if (e["ph"] == "X")
      spans[{e["pid"], e["tid"]}].push_back(
          {e["ts"], e["ts"].get<std::uint64_t>() + e["dur"].get<std::uint64_t>()});
  for (auto& [key, list] : spans) {
    std::sort(list.begin(), list.end());
    for (std::size_t i = 1; i < list.size(); ++i) ASSERT_LE(list[i - 1].second, list[i].first);
  }
}

TEST(Traces, TheJsonIsTraceEventDataWhoseSlicesAreTheRunsTimings) {
  const auto m = config("mini");
  Simulation sim(m);
  SimulationOptions o;
  o.json_path = testing::temp_path("gemm.json");
  o.kernel = "gemm.prog";
  const program::Program p = parse(kTracedGemm, m);
  SimulationResult r =
      sim.run(p, {{"A", std::vector<std::uint8_t>(96 * 8, 1)}, {"B", std::vector<std::uint8_t>(64, 1)}}, o);
  const json doc = read_json(o.json_path);
  check_trace_event_format(doc);
  EXPECT_EQ(doc["otherData"]["machine"], "mini");
  EXPECT_EQ(doc["otherData"]["kernel"], "gemm.prog");
  // The board's instruction slices (their args name the kind): one per instruction, at the run's timings.
  std::map<std::size_t, json> instr;
  auto is_instruction = [](const json& e) { return e["ph"] == "X" && e["args"].contains("kind"); };
  for (const json& e : doc["traceEvents"])
    if (is_instruction(e)) instr[e["args"]["instr"]] = e;
  ASSERT_EQ(instr.size(), p.instrs.size());
  for (std::size_t i = 0; i < p.instrs.size(); ++i) {
    EXPECT_EQ(instr[i]["ts"], r.timings[i].start) << i;
    EXPECT_EQ(instr[i]["dur"], r.timings[i].end - r.timings[i].start) << i;
  }
  EXPECT_EQ(instr[2]["args"]["macs"], 3u * 8 * 8 * m.pe_count());
  EXPECT_EQ(instr[0]["args"]["layout"], "((2_L1B, 4_MAB, 4_PE, 3:8), (8:1))");
  // Every unit's slice lies inside its instruction's span.
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X" || is_instruction(e)) continue;
    const auto& t = r.timings[e["args"]["instr"].get<std::size_t>()];
    EXPECT_GE(e["ts"].get<std::uint64_t>(), t.start) << e;
    EXPECT_LE(e["ts"].get<std::uint64_t>() + e["dur"].get<std::uint64_t>(), t.end) << e;
  }
}

TEST(Traces, TheGtkwaveSaveFileNamesSignalsTheVcdDeclares) {
  const auto m = config("mini");
  Simulation sim(m);
  SimulationOptions o;
  o.vcd_path = testing::temp_path("view.vcd");
  o.gtkw_path = o.vcd_path + ".gtkw";
  o.vcd_name = "view.vcd";
  sim.run(parse(kTracedGemm, m),
          {{"A", std::vector<std::uint8_t>(96 * 8, 1)}, {"B", std::vector<std::uint8_t>(64, 1)}}, o);
  const Vcd v = read_vcd(o.vcd_path);
  std::istringstream in(testing::read_text(o.gtkw_path));
  std::string line;
  int groups = 0, signals = 0;
  std::vector<std::string> open;
  bool dumpfile = false, end_next = false;
  while (std::getline(in, line)) {
    ASSERT_FALSE(line.empty());
    if (line.rfind("[dumpfile] ", 0) == 0) dumpfile = line == "[dumpfile] \"view.vcd\"";
    if (line[0] == '[' || line[0] == '@') {
      end_next = line == "@1000200";
      continue;
    }
    if (line[0] == '-') {  // a group's name: opened by @800200, closed by @1000200
      if (end_next) {
        ASSERT_FALSE(open.empty());
        EXPECT_EQ(open.back(), line);
        open.pop_back();
      } else {
        open.push_back(line);
        ++groups;
      }
      continue;
    }
    std::string name = line.substr(0, line.find('['));
    EXPECT_TRUE(v.id.count(name)) << name;
    ++signals;
  }
  EXPECT_TRUE(dumpfile);
  EXPECT_TRUE(open.empty());
  EXPECT_EQ(groups, 5);  // the board, L2B_0, L1B_0, MAB_0 and PE_0
  EXPECT_GT(signals, 20);
  EXPECT_EQ(
      testing::read_text(o.gtkw_path).find("board.L2B_0.L1B_0.MAB_0.PE_0.mac_busy") == std::string::npos,
      false);
}

}  // namespace
}  // namespace treesim::models
