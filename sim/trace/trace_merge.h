// Chrome traces of programs that ran one after another (an ONNX graph's machine nodes) as one trace
// on one time axis: each part's events shifted by the end cycles of the parts before it, its
// processes (the levels) renumbered and named "LABEL: LEVEL", and a "programs" process with one
// slice per part, named by its label.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace treesim::trace {

struct TracePart {
  std::string label;  // e.g. "QConv 'l0'"
  std::string path;   // a trace write_trace_json wrote
};

// Throws std::runtime_error naming the part's file when it is not such a trace.
nlohmann::json merge_traces(const std::vector<TracePart>& parts);

}  // namespace treesim::trace
