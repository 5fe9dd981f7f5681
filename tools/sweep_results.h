// A sweep's folder: its plan (sweep.json), one result record per finished point
// (points/NNNN.result.json, written atomically and last, so it marks the point done), and
// results.csv, built from the records.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/sweep_spec.h"

namespace treesim::tools {

// The plan of a sweep as saved in its folder: enough to collect the results without the spec.
struct SweepPlan {
  std::vector<std::string> axes;
  std::vector<std::string> columns;  // index, the axes, then the result columns
  std::vector<std::vector<std::string>> points;
  nlohmann::json identity;  // what makes two sweeps the same: kernel, options, machine, axes, points
};

SweepPlan make_plan(const SweepSpec& spec, const std::vector<SweepPoint>& points);

// What a run into a folder of an earlier sweep did with its points, when only the grid changed.
struct GridChange {
  std::size_t kept = 0, added = 0, removed = 0;
};

// Writes DIR/sweep.json, or checks the one there. The same sweep: nothing to do. Only the points
// differ (values added to or taken from the grid): each point still in the grid keeps its files
// (renumbered), those no longer in it move to DIR/removed/, the new plan is saved, and the change
// is returned. Anything else differs (kernel, options, base machine, varied fields): a CliError
// naming what, and the folder is left as it is.
std::optional<GridChange> save_or_check_plan(const std::string& dir, const SweepPlan& plan);
SweepPlan load_plan(const std::string& dir);

// Digits of a point's number in file names: at least 4, enough for the last point.
std::size_t point_digits(std::size_t points);
// Where a point's files go: DIR/points/0007.yaml, .json (report), .result.json (record).
std::string point_file(const std::string& dir, std::size_t index, std::size_t points,
                       const std::string& suffix);

// One finished point: "ok" with the report's figures, or "failed" with its one-line error.
struct PointResult {
  std::string status;
  std::string error;
  std::map<std::string, std::string> fields;  // result columns by name
};

// The result columns of a finished run, from its JSON report and its machine (peaks for rooflines).
PointResult result_from_report(const nlohmann::json& report, const machine::MachineConfig* machine);

void write_record(const std::string& path, const PointResult& result);
std::optional<PointResult> read_record(const std::string& path);

struct CollectCounts {
  std::size_t ok = 0, failed = 0, missing = 0;
};
// Builds DIR/results.csv from the plan and the records (a point without one is "missing").
CollectCounts collect(const std::string& dir);

// A CSV field, quoted when it must be (RFC 4180).
std::string csv_field(const std::string& text);

}  // namespace treesim::tools
