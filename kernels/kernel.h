// The kernel contract: what a kernel provides so that one driver — `treesim run KERNEL`, a sweep, a
// tuner, a Python binding — can run any kernel without knowing it. As in Timeloop, the problem
// (workload), the machine (architecture) and the plan (mapping) are separate values, and every step
// returns its failures as values (core::Errors, each naming the option or file at fault).
//
// The steps, in the order a driver calls them:
//   options  declared as data (OptionSpec); the driver hands back typed values (Options)
//   problem  Kernel::make_problem(options, machine): sizes first (refused before anything is
//            allocated), then the operands, read from files or synthesised from a seed
//   check    Problem::check(machine): what the machine cannot run (LM, zero points, ...)
//   plan     Problem::plan(machine): the mapping, with an analytic cycle estimate and a description
//   build    Problem::program(plan, machine) and Problem::inputs() (the DRAM image by tensor name;
//            a timing-only run asks only for Problem::input_tensors(), the names)
//   collect  Problem::host_outputs(plan, dram): the host's part after the run (by default none)
//   verify   Problem::reference() and Problem::verify(gathered, expected)
//   report   Problem::add_report_fields(plan, machine, stats); Problem::outputs() names the arrays
//            a driver may write out (--out)
// No SystemC and no command-line library here.
#pragma once

#include <any>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "sim/core/checked.h"
#include "sim/core/dtype.h"
#include "sim/core/error.h"
#include "sim/machine/machine_config.h"
#include "sim/program/instruction.h"
#include "sim/report/run_stats.h"

namespace treesim::program {
struct CheckedProgram;
}

namespace treesim::kernels {

// A value or the errors that prevented it.
template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit, as a return value
  Result(core::Error error) : errors_{std::move(error)} {}
  Result(core::Errors errors) : errors_(std::move(errors)) {}
  bool ok() const { return value_.has_value(); }
  explicit operator bool() const { return ok(); }
  T& value() { return *value_; }
  const T& value() const { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }
  const core::Errors& errors() const { return errors_; }

 private:
  std::optional<T> value_;
  core::Errors errors_;
};

// ---- Options, declared as data ----

enum class OptionKind { kUnsigned, kSigned, kFlag, kText, kPath, kChoice };
using OptionValue = std::variant<std::uint64_t, std::int64_t, bool, std::string>;

struct OptionSpec {
  std::string name;  // without dashes: "m", "layout-a" (the command line spells them --m, --layout-a)
  OptionKind kind = OptionKind::kText;
  std::string help;
  std::optional<OptionValue> default_value;  // none: absent unless given (a flag is then false)
  std::vector<std::string> choices;          // kChoice: the allowed values
  std::optional<std::int64_t> min, max;      // integer kinds: the allowed range, inclusive
};

// "--name" (how errors and the command line name an option).
std::string option_flag(const std::string& name);
// A value as text ("1", "s8", "true").
std::string to_text(const OptionValue& value);

// Typed option values by name: those given and the defaults of the others.
class Options {
 public:
  void set(const std::string& name, OptionValue value) { values_[name] = std::move(value); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::optional<std::uint64_t> unsigned_int(const std::string& name) const;
  std::optional<std::int64_t> signed_int(const std::string& name) const;
  bool flag(const std::string& name) const;         // false when absent
  std::string text(const std::string& name) const;  // text, path or choice; "" when absent
  const std::map<std::string, OptionValue>& values() const { return values_; }

 private:
  std::map<std::string, OptionValue> values_;
};

// Values of the right kind, in range, among the choices; unknown names are errors.
core::Errors check_options(const std::vector<OptionSpec>& specs, const Options& options);
// Options from text (as a sweep file or a Python dict gives them): converted by kind, defaults
// filled in, then checked.
Result<Options> parse_options(const std::vector<OptionSpec>& specs,
                              const std::map<std::string, std::string>& given);

// ---- Problem, plan, outputs ----

using DramImage = std::map<std::string, std::vector<std::uint8_t>>;

// An array the kernel leaves in DRAM, as --out writes it (.npy of this dtype and shape).
struct OutputArray {
  std::string tensor;
  core::DType dtype = core::DType::kInt8;
  std::vector<std::uint64_t> shape;
  // Set: --out writes float32 values scale · (q − zero_point) instead of the codes (--out-dtype f32).
  struct Dequantize {
    float scale = 1.0f;
    std::int32_t zero_point = 0;
  };
  std::optional<Dequantize> dequantize;
};

struct Plan {
  double estimated_cycles = 0;  // the planner's analytic estimate (closed forms, no simulation)
  std::string description;      // for people: what --plan prints (may span lines)
  std::any mapping;             // the kernel's own plan; only the kernel that made it reads it
};

// ---- Tuning (optional) ----

// One plan a tuner may try: estimated, and built by Problem::program like plan()'s.
struct Candidate {
  Plan plan;
  std::string choice;  // one line: how the plan maps the problem (levels → dimensions, tiles, steps)
  std::uint64_t lm_bytes = 0;  // LM bytes per PE the plan uses
};

struct Candidates {
  // Every candidate that passed the cheap checks, by estimate and then enumeration order, so that
  // ranked[0] is the plan plan() chooses.
  std::vector<Candidate> ranked;
  std::vector<std::pair<std::string, std::uint64_t>> pruned;  // why (one phrase) and how many
  std::uint64_t enumerated = 0;                               // ranked + every pruned one
};

// One problem instance with its operands.
class Problem {
 public:
  virtual ~Problem() = default;
  virtual core::Errors check(const machine::MachineConfig& machine) const = 0;
  virtual Result<Plan> plan(const machine::MachineConfig& machine) const = 0;
  virtual Result<program::Program> program(const Plan& plan, const machine::MachineConfig& machine) const = 0;
  // The checker's result for program(plan) when the kernel has it already (its planner checked the
  // program to estimate it), so that the run does not check it again; by default none.
  virtual const program::CheckedProgram* checked_program(const Plan& plan) const;
  virtual DramImage inputs() const = 0;
  // inputs() for a caller that needs them once: a kernel may hand over the bytes it holds instead
  // of copying them, and make them again if asked later (a seeded qgemm hands over its drawn A and
  // B, 8 MB at 2048³, and draws them again only for reference()).
  virtual DramImage take_inputs() { return inputs(); }
  // The tensors inputs() fills, without making their bytes: all a timing-only run needs (which
  // tensors hold data). By default inputs()' names; a kernel whose operands are costly to make
  // overrides it.
  virtual std::vector<std::string> input_tensors() const;
  // The outputs from the DRAM after the run, as verify() and --out read them: by default the DRAM
  // as it is. A kernel whose PEs leave results in per-PE slices takes each value from its slice
  // here (host work after the run: it moves no simulated bytes and costs no cycles).
  virtual DramImage host_outputs(const Plan& plan, DramImage dram) const;
  // The expected outputs by tensor name, computed on the host.
  virtual Result<DramImage> reference() const = 0;
  // By default every element of every output, in outputs()' order.
  virtual report::VerifyResult verify(const DramImage& gathered, const DramImage& expected) const;
  // Parts of the program reported on their own (RunStats::phases: each one's cycles and traffic), by
  // default none: e.g. a network's layers and conversions.
  struct Phase {
    std::string name;
    std::size_t first = 0, last = 0;  // instructions [first, last)
    std::optional<std::uint64_t> lm_bytes_per_pe;
  };
  virtual std::vector<Phase> phases(const Plan& plan, const program::Program& program,
                                    const machine::MachineConfig& machine) const;
  // Kernel-specific report fields (RunStats::extra and ::info).
  virtual void add_report_fields(const Plan& plan, const machine::MachineConfig& machine,
                                 report::RunStats& stats) const = 0;
  virtual std::vector<OutputArray> outputs() const = 0;
  // The MACs the problem itself needs (M·N·K, stored nonzeros × n), not those issued on padding:
  // reports derive intensity, throughput and MAC energy from them. None: a kernel without MACs.
  virtual std::optional<std::uint64_t> useful_macs() const { return std::nullopt; }

  // Tuning: every candidate plan (by default: an error, the kernel has no tuner), a plan as a plan
  // file's text, and a plan read back from such a file (both by default errors).
  virtual Result<Candidates> candidates(const machine::MachineConfig& machine) const;
  virtual Result<std::string> plan_file(const Plan& plan, const machine::MachineConfig& machine) const;
  virtual Result<Plan> plan_from_file(const std::string& path, const machine::MachineConfig& machine) const;
};

struct Kernel {
  std::string name;     // `treesim run NAME`
  std::string summary;  // one line
  std::vector<OptionSpec> options;
  std::string output_help;  // what --out writes, e.g. "Write C as .npy"
  // A small problem that runs in a blink (option name → value as text), for generic tests and docs.
  std::map<std::string, std::string> example;
  // Options already checked against `options`. Sizes are refused before anything is allocated.
  Result<std::unique_ptr<Problem>> (*make_problem)(const Options& options,
                                                   const machine::MachineConfig& machine) = nullptr;
  // A kChoice option whose choice "all" asks for one run per other choice, compared side by side
  // (`treesim run` does it; make_problem refuses "all"). Empty: none.
  std::string compare_option;
  // Whether its problems give tuning candidates (`treesim tune NAME`) and read plan files
  // (`treesim run NAME --plan-file`).
  bool tunable = false;
  bool plan_files = false;
};

// The problem's checks, then its plan (plan()). The errors come first in the order a user fixes
// them. No simulation: graph programs plan their units with it, and the run session runs the plan.
Result<Plan> plan_problem(const Problem& problem, const machine::MachineConfig& machine);

// Compares the elements of row-major arrays; the first mismatch reads "C[3,7]: got 12, expected 13".
report::VerifyResult compare_arrays(const std::vector<OutputArray>& arrays, const DramImage& gathered,
                                    const DramImage& expected);

// Checked arithmetic for sizes that come from users: sim/core/checked.h.
using core::checked_add;
using core::checked_mul;

}  // namespace treesim::kernels
