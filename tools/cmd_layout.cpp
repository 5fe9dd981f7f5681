// `treesim layout show|locate|inverse|convert`: a TensorLayout's mapping, footprint and traffic.
// An invalid layout prints its diagnostic (code and caret) on stderr and exits with status 2.
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "sim/core/echo.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/convert.h"
#include "sim/layout/loader_plan.h"
#include "sim/layout/parse.h"
#include "sim/layout/unit_view.h"
#include "tools/cli.h"
#include "tools/layout_convert_run.h"
#include "tools/options.h"

namespace treesim::tools {
namespace {

using nlohmann::ordered_json;
using V = std::vector<std::uint64_t>;

struct Common {
  std::string layout, machine, shape, dtype = "int8";
  bool json = false;
};

void add_common(CLI::App* cmd, Common& o) {
  cmd->add_option("--shape", o.shape,
                  "Logical tensor shape, e.g. 12,8 (default: the pad prefix or the layout's)");
  cmd->add_option("--machine", o.machine, "Machine file (YAML)")->required();
  cmd->add_option("--dtype", o.dtype, "Element type: int8, uint8, int16, int32, float32")
      ->capture_default_str();
  cmd->add_flag("--json", o.json, "Print JSON");
}

V parse_list(const std::string& text, const std::string& what) { return parse_unsigned_list(text, what); }

// Prints the diagnostic as it is (layout, caret, message) and ends the command with status 2.
[[noreturn]] void layout_failure(const layout::Diagnostic& d) {
  std::cerr << d.render();
  throw CliError("invalid layout (" + d.code + ")");
}

struct Loaded {
  machine::MachineConfig machine;
  core::DType type = core::DType::kInt8;
  std::optional<layout::BoundLayout> bound;
  std::vector<layout::Diagnostic> warnings;
};

Loaded load(const Common& o, const std::string& text) {
  Loaded l;
  l.machine = load_machine_or_throw(o.machine);
  auto type = core::parse_dtype(o.dtype);
  if (!type)
    throw CliError("--dtype: expected int8, uint8, int16, int32 or float32, got '" + core::echo(o.dtype) +
                   "'");
  l.type = *type;
  layout::ParseResult p = layout::parse_layout(text, l.machine);
  if (!p) layout_failure(*p.error);
  V shape = o.shape.empty() ? (p.layout->logical_shape ? *p.layout->logical_shape : p.layout->padded_shape())
                            : parse_list(o.shape, "--shape");
  layout::BindResult b = layout::bind_layout(*p.layout, shape, l.machine, core::dtype_bytes(l.type));
  if (!b) layout_failure(b.validation.errors.front());
  l.bound = std::move(b.layout);
  l.warnings = b.validation.warnings;
  return l;
}

ordered_json level_traffic_json(const layout::LevelTraffic& t) {
  return {{"down_sent_bytes", t.down_sent_bytes},
          {"down_delivered_bytes", t.down_delivered_bytes},
          {"busiest_down_port_bytes", t.busiest_down_port_bytes},
          {"up_sent_bytes", t.up_sent_bytes},
          {"up_delivered_bytes", t.up_delivered_bytes},
          {"busiest_up_port_bytes", t.busiest_up_port_bytes}};
}

void show(const Common& o) {
  Loaded l = load(o, o.layout);
  const layout::BoundLayout& b = *l.bound;
  std::optional<layout::TrafficPlan> load_plan, gather_plan;
  if (!b.has_time()) {
    load_plan = layout::plan_load(b);
    gather_plan = layout::plan_gather(b);
  }
  const std::string canonical = layout::to_string(b.layout());
  const std::string sum = layout::summary(b, core::dtype_short_name(l.type));
  if (o.json) {
    ordered_json j;
    j["canonical"] = canonical;
    j["summary"] = sum;
    j["shape"] = b.shape();
    j["dtype"] = core::dtype_name(l.type);
    j["footprint_bytes_per_unit"] = b.footprint_bytes_per_unit();
    j["replication"] = b.replicas();
    j["pes_used"] = b.pes_used();
    if (load_plan) {
      ordered_json t;
      t["dram_read_bytes"] = load_plan->dram_read_bytes;
      t["dram_write_bytes"] = gather_plan->dram_write_bytes;
      t["load_transfers"] = load_plan->transfers;
      t["gather_transfers"] = gather_plan->transfers;
      t["levels"] = ordered_json::object();
      for (std::size_t lv = 0; lv < b.level_count(); ++lv) {
        layout::LevelTraffic x = load_plan->levels[lv];
        const auto& g = gather_plan->levels[lv];
        x.up_sent_bytes = g.up_sent_bytes;
        x.up_delivered_bytes = g.up_delivered_bytes;
        x.busiest_up_port_bytes = g.busiest_up_port_bytes;
        t["levels"][b.level_name(lv)] = level_traffic_json(x);
      }
      j["traffic"] = t;
    } else {
      j["traffic"] = nullptr;  // _Time layouts are streamed, not loaded at once (E140)
    }
    j["warnings"] = ordered_json::array();
    for (const auto& w : l.warnings) j["warnings"].push_back({{"code", w.code}, {"message", w.message}});
    emit(j.dump(2) + "\n");
    return;
  }
  std::string out = fmt::format("layout   {}\n", canonical);
  out += fmt::format("tensor   {} {} on {} ({} PEs)\n", core::dtype_name(l.type),
                     layout::shape_string(b.shape()), l.machine.name, l.machine.pe_count());
  out += fmt::format("summary  {}\n", sum);
  out += l.warnings.empty() ? "valid    yes, no warnings\n" : "valid    yes, with warnings:\n";
  for (const auto& w : l.warnings) out += w.render();
  std::string grid = layout::tensor_grid(b);
  if (!grid.empty()) out += "\ntensor view (cell = PE:address of replica 0, * = padding):\n" + grid;
  out +=
      fmt::format("\nfootprint  {} B per used {} ({} addresses × {} element(s) × {} B), {} {}s used\n",
                  b.footprint_bytes_per_unit(), b.level_name(b.level_count() - 1), b.cosize(b.addr_target()),
                  b.words_per_address(), b.element_bytes(), b.pes_used(), b.level_name(b.level_count() - 1));
  out += fmt::format("replication ×{}\n", b.replicas());
  if (!load_plan) {
    out += "traffic    none: a _Time layout is streamed step by step, not loaded at once (E140)\n";
    emit(out);
    return;
  }
  out += fmt::format(
      "\nloader traffic (bytes): DRAM read {}, DRAM write (gather) {}; transfers: load {}, gather {}\n",
      load_plan->dram_read_bytes, gather_plan->dram_write_bytes, load_plan->transfers,
      gather_plan->transfers);
  out += fmt::format("  {:<8} {:>14} {:>16} {:>14} {:>14} {:>14}\n", "level", "down sent", "down delivered",
                     "busiest down", "up sent", "busiest up");
  for (std::size_t lv = 0; lv < b.level_count(); ++lv) {
    const auto& d = load_plan->levels[lv];
    const auto& u = gather_plan->levels[lv];
    out += fmt::format("  {:<8} {:>14} {:>16} {:>14} {:>14} {:>14}\n", b.level_name(lv), d.down_sent_bytes,
                       d.down_delivered_bytes, d.busiest_down_port_bytes, u.up_sent_bytes,
                       u.busiest_up_port_bytes);
  }
  emit(out);
}

ordered_json units_json(const layout::BoundLayout& b, const V& units) {
  ordered_json u = ordered_json::object();
  for (std::size_t lv = 0; lv < b.level_count(); ++lv) u[b.level_name(lv)] = units[lv];
  return u;
}

void locate(const Common& o, const std::string& index_text) {
  Loaded l = load(o, o.layout);
  const layout::BoundLayout& b = *l.bound;
  V index = parse_list(index_text, "--index");
  std::vector<layout::Location> locs;
  try {
    locs = b.locations(index);
  } catch (const layout::LayoutError& e) {
    throw CliError(e.diagnostic().headline());
  }
  const bool padding = b.is_padding(index);
  if (o.json) {
    ordered_json j;
    j["padding"] = padding;
    j["locations"] = ordered_json::array();
    for (const auto& loc : locs) {
      ordered_json x;
      x["units"] = units_json(b, loc.units);
      x["addr"] = loc.addr;
      if (b.has_lanes()) x["lane"] = loc.lane;
      if (b.has_time()) x["time"] = loc.time;
      j["locations"].push_back(x);
    }
    emit(j.dump() + "\n");
    return;
  }
  std::string out = fmt::format("{} {}{}: {} location(s)\n", padding ? "padding slot" : "element",
                                layout::shape_string(index), padding ? "" : "", locs.size());
  for (const auto& loc : locs) {
    std::string units;
    for (std::size_t lv = 0; lv < b.level_count(); ++lv)
      units += fmt::format("{}{} {}", lv ? ", " : "", b.level_name(lv), loc.units[lv]);
    out +=
        fmt::format("  replica {}: PE {} ({}) address {}", loc.replica, b.pe_id(loc.units), units, loc.addr);
    if (b.has_lanes()) out += fmt::format(" lane {}", loc.lane);
    if (b.has_time()) out += fmt::format(" time {}", loc.time);
    out += "\n";
  }
  emit(out);
}

struct InverseOptions {
  std::string unit;
  std::optional<std::uint64_t> pe;
  std::uint64_t addr = 0, lane = 0, time = 0;
};

void inverse(const Common& o, const InverseOptions& q) {
  Loaded l = load(o, o.layout);
  const layout::BoundLayout& b = *l.bound;
  V units(b.level_count(), 0);
  if (q.pe) {
    std::uint64_t pe = *q.pe;
    if (pe >= l.machine.pe_count())
      throw CliError(fmt::format("--pe {}: the machine has {} PEs", pe, l.machine.pe_count()));
    for (std::size_t lv = 0; lv < b.level_count(); ++lv) units[lv] = pe / b.pe_weight(lv) % b.fanout(lv);
  }
  std::stringstream s(q.unit);
  std::string item;
  while (std::getline(s, item, ',')) {
    auto eq = item.find('=');
    auto lv = eq == std::string::npos ? std::nullopt : l.machine.level_index(item.substr(0, eq));
    if (!lv)
      throw CliError("--unit: expected LEVEL=INDEX,... with the machine's level names, got '" +
                     core::echo(q.unit) + "'");
    // The range against the fan-out is the layout's own check (E151), with its message.
    units[*lv] = parse_unsigned(item.substr(eq + 1), "--unit " + l.machine.levels[*lv].name);
  }
  layout::SlotContent c;
  try {
    c = b.inverse(units, q.addr, q.lane, q.time);
  } catch (const layout::LayoutError& e) {
    throw CliError(e.diagnostic().headline());
  }
  const char* kind = c.kind == layout::SlotKind::Element   ? "element"
                     : c.kind == layout::SlotKind::Padding ? "padding"
                                                           : "empty";
  if (o.json) {
    ordered_json j;
    j["kind"] = kind;
    if (c.kind != layout::SlotKind::Empty) {
      j["index"] = c.index;
      j["replica"] = c.replica;
    }
    emit(j.dump() + "\n");
    return;
  }
  if (c.kind == layout::SlotKind::Empty)
    emit(fmt::format("PE {} address {}: empty\n", b.pe_id(units), q.addr));
  else
    emit(fmt::format("PE {} address {}: {} {} replica {}\n", b.pe_id(units), q.addr, kind,
                     layout::shape_string(c.index), c.replica));
}

struct ConvertOptions {
  std::string to;
  bool run = false;
  std::uint64_t seed = 1;
  RunOptions run_options;
};

// After a simulated conversion: the outputs are written, and a wrong slot ends with status 1.
void finish_convert_run(const ConversionRun& r, const ConvertOptions& co, OutputSet& outputs) {
  if (!co.run_options.timing_only && !r.verify.ok)
    throw CliError("convert: a destination slot does not hold its element: " + r.verify.first_mismatch, 1);
  outputs.commit();
}

void convert(const Common& o, const ConvertOptions& co) {
  OutputSet outputs;
  if (co.run) co.run_options.stage(outputs);
  Loaded a = load(o, o.layout);
  Loaded c = load(o, co.to);
  layout::ConversionPlan p;
  try {
    p = layout::plan_conversion(*a.bound, *c.bound);
  } catch (const layout::LayoutError& e) {
    layout_failure(e.diagnostic());
  }
  const layout::BoundLayout& b = *a.bound;
  std::optional<ConversionRun> run;
  if (co.run) run = simulate_conversion(a.machine, a.type, b, *c.bound, p, co.seed, co.run_options, outputs);
  auto lca_name = [&](std::size_t i) { return i == 0 ? std::string("board") : b.level_name(i - 1); };
  if (o.json) {
    ordered_json j;
    j["from"] = layout::to_string(b.layout());
    j["to"] = layout::to_string(c.bound->layout());
    j["destination_slots"] = p.destination_slots;
    j["in_place"] = p.in_place;
    j["copies"] = p.copies();
    j["copies_by_lca"] = ordered_json::object();
    for (std::size_t i = 0; i < p.copies_by_lca.size(); ++i)
      j["copies_by_lca"][lca_name(i)] = p.copies_by_lca[i];
    j["link_bytes"] = p.link_bytes();
    j["levels"] = ordered_json::object();
    for (std::size_t lv = 0; lv < b.level_count(); ++lv)
      j["levels"][b.level_name(lv)] = level_traffic_json(p.levels[lv]);
    if (run) {
      j["run"] = {{"cycles", run->cycles}, {"estimate_cycles", run->estimate_cycles}};
      if (!co.run_options.timing_only)
        j["run"]["verify"] = {
            {"ok", run->verify.ok}, {"slots", run->slots_checked}, {"mismatches", run->verify.mismatches}};
    }
    emit(j.dump(2) + "\n");
    if (run) finish_convert_run(*run, co, outputs);
    return;
  }
  std::string out = fmt::format("convert {}\n     to {}\n", layout::to_string(b.layout()),
                                layout::to_string(c.bound->layout()));
  out += fmt::format("destination slots {}: {} in place, {} copied\n", p.destination_slots, p.in_place,
                     p.copies());
  for (std::size_t i = 0; i < p.copies_by_lca.size(); ++i)
    out += fmt::format("  copies whose common ancestor is {:<6} {}{}\n",
                       i == 0 ? "the board" : "a " + lca_name(i), p.copies_by_lca[i],
                       i + 1 == p.copies_by_lca.size() ? "  (inside one PE)" : "");
  out += fmt::format("link traffic (bytes), total {}:\n", p.link_bytes());
  out += fmt::format("  {:<8} {:>12} {:>12} {:>16} {:>14} {:>12}\n", "level", "up sent", "down sent",
                     "down delivered", "busiest down", "busiest up");
  for (std::size_t lv = 0; lv < b.level_count(); ++lv) {
    const auto& t = p.levels[lv];
    out += fmt::format("  {:<8} {:>12} {:>12} {:>16} {:>14} {:>12}\n", b.level_name(lv), t.up_sent_bytes,
                       t.down_sent_bytes, t.down_delivered_bytes, t.busiest_down_port_bytes,
                       t.busiest_up_port_bytes);
  }
  if (run) {
    out += fmt::format("simulated on {}: {} cycles (the cost model, alone: {})\n", a.machine.name,
                       run->cycles, run->estimate_cycles);
    if (!co.run_options.timing_only)
      out += fmt::format("every destination slot holds its element: {} ({} slots checked{})\n",
                         run->verify.ok ? "yes" : "no", run->slots_checked,
                         run->verify.ok ? "" : ", first wrong: " + run->verify.first_mismatch);
  }
  emit(out);
  if (run) finish_convert_run(*run, co, outputs);
}

}  // namespace

void add_layout_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("layout",
                                 "Inspect a TensorLayout: mapping, footprint, loader and conversion traffic");
  cmd->require_subcommand(1);

  auto so = std::make_shared<Common>();
  auto* s =
      cmd->add_subcommand("show", "Canonical form, validation, tensor view, footprint and loader traffic");
  s->add_option("layout", so->layout, "The layout, e.g. \"((4_PE, 3:8), (8:1))\"")->required();
  add_common(s, *so);
  s->callback([so] { show(*so); });

  auto lo = std::make_shared<Common>();
  auto index = std::make_shared<std::string>();
  auto* l = cmd->add_subcommand("locate", "Every location (replica) of one tensor element");
  l->add_option("layout", lo->layout, "The layout")->required();
  add_common(l, *lo);
  l->add_option("--index", *index, "Tensor index, e.g. 5,3 (padded indices allowed)")->required();
  l->callback([lo, index] { locate(*lo, *index); });

  auto io = std::make_shared<Common>();
  auto q = std::make_shared<InverseOptions>();
  auto* i = cmd->add_subcommand("inverse", "What one LM slot of one unit holds: element, padding or empty");
  i->add_option("layout", io->layout, "The layout")->required();
  add_common(i, *io);
  auto* unit_opt =
      i->add_option("--unit", q->unit, "Unit coordinates, e.g. L2B=0,L1B=0,MAB=0,PE=2 (missing = 0)");
  i->add_option("--pe", q->pe, "Global PE id instead of --unit")->excludes(unit_opt)->check(unsigned_in(0));
  i->add_option("--addr", q->addr, "LM address")->required()->check(unsigned_in(0));
  i->add_option("--lane", q->lane, "Lane inside the address (_W)")->check(unsigned_in(0));
  i->add_option("--time", q->time, "Time step (_Time)")->check(unsigned_in(0));
  i->callback([io, q] { inverse(*io, *q); });

  auto co = std::make_shared<Common>();
  auto to = std::make_shared<ConvertOptions>();
  auto* c = cmd->add_subcommand("convert", "Traffic of converting a tensor from one layout to another");
  c->add_option("from", co->layout, "The source layout")->required();
  c->add_option("to", to->to, "The destination layout")->required();
  add_common(c, *co);
  c->add_flag("--run", to->run,
              "Simulate the conversion on the machine (a load by FROM, then a convert instruction) and check "
              "every destination slot");
  c->add_option("--seed", to->seed, "With --run: seed of the tensor's random contents")
      ->capture_default_str();
  add_run_options(*c, to->run_options);
  c->callback([co, to] { convert(*co, *to); });
}

}  // namespace treesim::tools
