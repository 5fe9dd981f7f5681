#include "kernels/graph/node_run.h"

namespace treesim::graph {

void add_program(NodeRun& record, const std::string& plan, const report::RunStats& stats) {
  if (record.programs++ == 0) record.plan = plan;
  record.cycles += stats.cycles;
  record.macs += stats.work.macs;
  record.dram_read += stats.work.dram_read_bytes;
  record.dram_written += stats.work.dram_write_bytes;
}

void add_verify(NodeRun& record, const report::VerifyResult& v, const std::string& where) {
  if (!record.verify) record.verify = report::VerifyResult{};
  record.verify->mismatches += v.mismatches;
  record.verify->ok = record.verify->mismatches == 0;
  if (!v.ok && record.verify->first_mismatch.empty())
    record.verify->first_mismatch = where + v.first_mismatch;
}

}  // namespace treesim::graph
