// Trace-event JSON for `treesim trace summarize`: every input either reads (and its stalls are
// found and tabled) or fails with TraceFileError; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/trace/stall_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace trace = treesim::trace;
  try {
    const trace::TraceFile t =
        trace::read_trace_file(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    (void)trace::stall_table(t, trace::find_stalls(t), 10, "fuzz.json");
  } catch (const trace::TraceFileError&) {
  }
  return 0;
}
