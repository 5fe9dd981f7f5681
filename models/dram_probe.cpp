#include "models/dram_probe.h"

#include <tlm_utils/simple_initiator_socket.h>

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "models/clock.h"
#include "models/dram.h"
#include "sim/core/mt19937_64.h"

namespace treesim::models {
namespace {

bool parse_count(const std::string& text, std::uint64_t& out) {
  if (text.empty() || text.size() > 18) return false;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  out = std::stoull(text);
  return out > 0;
}

// The addresses of the pattern, access by access.
class Addresses {
 public:
  Addresses(const machine::MachineConfig& m, const ProbeOptions& o, const Dram& dram)
      : o_(o),
        capacity_(m.dram.bytes),
        bursts_per_row_(m.dram.banked ? m.dram.banked->memspec.bursts_per_row() : 1),
        rng_(o.seed),
        dram_(dram) {}
  std::uint64_t operator()(std::uint64_t i) {
    const std::uint64_t slots = capacity_ / o_.access_bytes;
    switch (o_.pattern.kind) {
      case ProbePattern::Kind::kStream:
        return i % slots * o_.access_bytes;
      case ProbePattern::Kind::kRandom:
        return rng_() % slots * o_.access_bytes;
      case ProbePattern::Kind::kStride:
        return i * o_.pattern.stride % (slots * o_.access_bytes) / o_.access_bytes * o_.access_bytes;
      case ProbePattern::Kind::kRows: {
        // Rows 0..N−1 of bank 0 in turn; each visit reads the row's next burst.
        const DramBanks& b = *dram_.banks();
        DramBanks::Place p;
        p.row = i % o_.pattern.rows;
        p.column = i / o_.pattern.rows % bursts_per_row_;
        return b.encode(p);
      }
    }
    return 0;
  }

 private:
  const ProbeOptions& o_;
  const std::uint64_t capacity_, bursts_per_row_;
  core::Mt19937_64 rng_;
  const Dram& dram_;
};

class ProbeInitiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<ProbeInitiator> socket;
  SC_HAS_PROCESS(ProbeInitiator);
  ProbeInitiator(const sc_core::sc_module_name& name, const machine::MachineConfig& m, const ProbeOptions& o,
                 const Dram& dram)
      : sc_core::sc_module(name), socket("socket"), m_(m), o_(o), dram_(dram) {
    SC_THREAD(run);
  }
  std::vector<std::uint64_t> latencies;
  std::uint64_t end = 0;

 private:
  void run() {
    drive();
    // The thread does not return: a returned SC_THREAD's stack is freed while the sanitizer's record
    // of the main thread's stack may still point into it, and LeakSanitizer's scan at exit then reads
    // unmapped memory (seen on Linux 6.18). Waiting on an event nobody notifies ends the simulation all
    // the same (sc_start returns when nothing is left to run); drive()'s locals are gone by then.
    sc_core::wait(never_);
  }
  sc_core::sc_event never_;

  void drive() {
    Addresses next(m_, o_, dram_);
    const std::uint64_t accesses = (o_.bytes + o_.access_bytes - 1) / o_.access_bytes;
    std::vector<std::uint64_t> done(accesses, 0);
    BurstExtension burst;  // a new id per access: each is its own request
    burst.write = o_.write;
    tlm::tlm_generic_payload t;
    t.set_extension(&burst);
    for (std::uint64_t i = 0; i < accesses; ++i) {
      const std::uint64_t arrival = i >= o_.outstanding ? done[i - o_.outstanding] : 0;
      burst.id = i;
      burst.started = false;
      t.set_command(tlm::TLM_IGNORE_COMMAND);
      t.set_address(next(i));
      t.set_data_ptr(nullptr);
      t.set_data_length(static_cast<unsigned int>(o_.access_bytes));
      t.set_streaming_width(static_cast<unsigned int>(o_.access_bytes));
      t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
      sc_core::sc_time delay = cycles_to_time(arrival) - sc_core::sc_time_stamp();
      socket->b_transport(t, delay);
      done[i] = std::max(arrival, time_to_cycles(sc_core::sc_time_stamp() + delay));
      latencies.push_back(done[i] - arrival);
      end = std::max(end, done[i]);
    }
    t.clear_extension(&burst);
  }
  const machine::MachineConfig& m_;
  const ProbeOptions& o_;
  const Dram& dram_;
};

std::uint64_t percentile(const std::vector<std::uint64_t>& sorted, double q) {
  if (sorted.empty()) return 0;
  const auto i = static_cast<std::size_t>(q * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

std::optional<ProbePattern> parse_probe_pattern(const std::string& text, core::Error& error) {
  ProbePattern p;
  const std::size_t colon = text.find(':');
  const std::string kind = text.substr(0, colon),
                    arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  const bool has_arg = colon != std::string::npos;
  error = {"--pattern", fmt::format("expected stream, random, stride:BYTES or rows:N, got '{}'", text)};
  if ((kind == "stream" || kind == "random") && !has_arg) {
    p.kind = kind == "stream" ? ProbePattern::Kind::kStream : ProbePattern::Kind::kRandom;
    return p;
  }
  if (kind == "stride" && parse_count(arg, p.stride)) {
    p.kind = ProbePattern::Kind::kStride;
    return p;
  }
  if (kind == "rows" && parse_count(arg, p.rows)) {
    p.kind = ProbePattern::Kind::kRows;
    return p;
  }
  return std::nullopt;
}

std::string probe_pattern_name(const ProbePattern& p) {
  switch (p.kind) {
    case ProbePattern::Kind::kStream:
      return "stream";
    case ProbePattern::Kind::kRandom:
      return "random";
    case ProbePattern::Kind::kStride:
      return fmt::format("stride:{}", p.stride);
    case ProbePattern::Kind::kRows:
      return fmt::format("rows:{}", p.rows);
  }
  return "?";
}

core::Errors check_probe(const machine::MachineConfig& m, const ProbeOptions& o) {
  core::Errors e;
  if (o.access_bytes == 0 || o.access_bytes > m.dram.bytes || o.access_bytes > (1u << 30))
    e.push_back(
        {"--access-bytes", fmt::format("expected 1 to {} bytes, got {}",
                                       std::min<std::uint64_t>(m.dram.bytes, 1u << 30), o.access_bytes)});
  if (o.bytes == 0 || o.bytes > (std::uint64_t{1} << 36))
    e.push_back({"--bytes", fmt::format("expected 1 to 2^36 bytes, got {}", o.bytes)});
  else if (o.access_bytes && o.bytes / o.access_bytes > (std::uint64_t{1} << 26))
    e.push_back({"--bytes", fmt::format("expected at most 2^26 accesses of {} bytes, got {}", o.access_bytes,
                                        o.bytes / o.access_bytes)});
  if (o.outstanding == 0 || o.outstanding > 65536)
    e.push_back(
        {"--outstanding", fmt::format("expected 1 to 65536 accesses in flight, got {}", o.outstanding)});
  if (o.pattern.kind == ProbePattern::Kind::kRows) {
    if (!m.dram.banked)
      e.push_back(
          {"--pattern", fmt::format("rows:N needs a banked DRAM model; {} has the simple one", m.name)});
    else if (o.pattern.rows > m.dram.banked->memspec.rows)
      e.push_back(
          {"--pattern", fmt::format("rows:N: a bank of {} has {} rows, got {}", m.dram.banked->memspec.name,
                                    m.dram.banked->memspec.rows, o.pattern.rows)});
  }
  return e;
}

ProbeResult probe_dram(const machine::MachineConfig& m, const ProbeOptions& o) {
  Dram dram("dram", m);
  ProbeInitiator initiator("probe", m, o, dram);
  initiator.socket.bind(dram.socket);
  dram.start_run(0, nullptr);
  sc_core::sc_start();
  ProbeResult r;
  r.accesses = initiator.latencies.size();
  r.bytes = r.accesses * o.access_bytes;
  r.cycles = initiator.end;
  r.peak_bytes_per_cycle = m.dram.banked ? machine::banked_peak_bytes_per_cycle(*m.dram.banked, m.clock_ghz)
                                         : static_cast<double>(m.dram.bytes_per_cycle);
  r.achieved_bytes_per_cycle = r.cycles ? static_cast<double>(r.bytes) / static_cast<double>(r.cycles) : 0;
  if (dram.banks()) r.banks = dram.banks()->counters();
  std::vector<std::uint64_t> sorted = initiator.latencies;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty()) {
    r.latency_min = sorted.front();
    r.latency_max = sorted.back();
  }
  r.latency_p50 = percentile(sorted, 0.5);
  r.latency_p90 = percentile(sorted, 0.9);
  r.latency_p99 = percentile(sorted, 0.99);
  return r;
}

}  // namespace treesim::models
