// Stalls read back from a trace: waits for a held resource and waits for data, longest first.
#include <gtest/gtest.h>

#include "sim/trace/stall_summary.h"

namespace treesim::trace {
namespace {

TraceFile two_loads_and_a_mac() {
  // load 0 holds the port 0-10; load 1 (data ready at 0) waits for it until 10; mac 2 needs load
  // 1's data, ready at 30, while its unit was free from the start: it waits from 10, when it was
  // issued (load 1 started), not from 0.
  TraceFile t;
  t.instrs = {
      {"load#0", 0, 0, 10, std::nullopt}, {"load#1", 0, 10, 20, std::nullopt}, {"mac#2", 30, 30, 35, 1}};
  t.slices = {{"board.down", 0, 0, 10}, {"board.down", 1, 10, 20}, {"pe.mac", 2, 30, 35}};
  return t;
}

TEST(StallSummary, NamesTheHeldResourceAndTheDataWaitedFor) {
  const TraceFile t = two_loads_and_a_mac();
  const std::vector<Stall> s = find_stalls(t);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].instr, 2u);  // 20 cycles: the longest first
  EXPECT_TRUE(s[0].data);
  EXPECT_EQ(s[0].from, 10u);
  EXPECT_EQ(s[0].to, 30u);
  EXPECT_EQ(s[0].by, std::optional<std::size_t>(1));
  EXPECT_EQ(s[1].instr, 1u);
  EXPECT_FALSE(s[1].data);
  EXPECT_EQ(s[1].resource, "board.down");
  EXPECT_EQ(s[1].by, std::optional<std::size_t>(0));
  EXPECT_EQ(s[1].cycles(), 10u);
  const std::string table = stall_table(t, s, 1, "t.json");
  EXPECT_NE(table.find("mac#2"), std::string::npos);
  EXPECT_EQ(table.find("board.down"), std::string::npos);  // only the top 1
}

TEST(StallSummary, ATraceWithoutInstructionsIsRefused) {
  EXPECT_THROW(read_trace_file("{\"traceEvents\": []}", "t.json"), TraceFileError);
  EXPECT_THROW(read_trace_file("not json", "t.json"), TraceFileError);
  EXPECT_THROW(
      read_trace_file(
          R"({"traceEvents": [{"ph": "X", "name": "a", "ts": -1, "dur": 1, "args": {"instr": 0, "kind": "mac"}}]})",
          "t.json"),
      TraceFileError);
  // Fields of the wrong type and hostile nesting are refused with a message, not a crash.
  EXPECT_THROW(read_trace_file(R"({"traceEvents": [{"ph": 3}]})", "t.json"), TraceFileError);
  EXPECT_THROW(read_trace_file(std::string(100000, '[') + std::string(100000, ']'), "t.json"),
               TraceFileError);
}

}  // namespace
}  // namespace treesim::trace
