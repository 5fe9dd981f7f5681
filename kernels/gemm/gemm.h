// The GEMM core that qgemm (B as int8) and tgemm (B as packed trits) are front ends of: the
// problem C[M×N] = requant(A[M×K] · B[K×N] + bias), its plans, their search and estimate, the
// layouts of the operands and tiles. (Its types keep qgemm's names, the first front end's.)
//
// A plan assigns every level of the machine to one GEMM dimension — M (rows of A and C), N (columns
// of B and C), K (the reduction, split over the lowest levels and summed up the tree) — or to none
// (the operands are replicated there). Every PE then owns a tm×tn tile of C per pass and streams K
// in steps of kt through two (or three) LM buffers per operand, so that the loads of step s+1 (and
// s+2) overlap the MACs of step s; or one operand stays in the LM over the passes that share it. Passes
// are software-pipelined: a pass's C store goes out in row pieces between the next pass's loads. No
// timing here: cycles come from running the program on a machine.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "sim/layout/matrix.h"
#include "sim/layout/tensor_layout.h"
#include "sim/machine/machine_config.h"
#include "sim/numeric/requant.h"
#include "sim/program/instruction.h"

namespace treesim::kernels {

struct QgemmProblem {
  std::uint64_t m = 0, n = 0, k = 0;
  core::DType a_dtype = core::DType::kInt8;  // int8 or uint8
  core::DType b_dtype = core::DType::kInt8;
  std::int32_t a_zero = 0, b_zero = 0;
  bool has_bias = false;
  numeric::OutputStage out;  // 1 multiplier (per tensor) or N (per output column)
  // Ternary weights (tgemm): B is W, multiplied on the ternary MAC path. With w_trits_per_byte > 0,
  // W travels packed (that many trits per byte, packed along K) and every PE decodes each step's
  // tile on its decoder (on the base-3 datapath when w_base3) into a second buffer.
  bool ternary = false;
  std::uint64_t w_trits_per_byte = 0;
  bool w_base3 = false;
  // No output stage: C is the int32 accumulators (ONNX's MatMulInteger), stored as the MACs leave
  // them. No bias and no requant parameters then.
  bool int32_out = false;
  // GEMMs of this shape that run one after another in one program (kernels/conv2d's groups;
  // GemmOperands says where their operands lie): the LM map and the estimate count all their passes.
  std::uint64_t groups = 1;
  bool per_channel() const { return !int32_out && out.multipliers.size() > 1; }
  // C's element type, as the program's tensors name it.
  core::DType out_dtype() const {
    if (int32_out) return core::DType::kInt32;
    return out.out_dtype == core::DType::kUInt8 ? core::DType::kUInt8 : core::DType::kInt8;
  }
  std::uint64_t out_bytes() const { return int32_out ? 4 : 1; }
};

// A problem or plan that cannot run; what() is one line.
class QgemmError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Which levels distribute which dimension, in the order the layouts name them (outermost first),
// each with the number of its units used (its fan-out, or fewer). Levels in no list hold copies.
// A level in both M's and N's lists is shared: its units form a u_m × u_n grid (unit i_m·u_n + i_n,
// u_m·u_n at most its fan-out), A is copied over its N digit and B over its M digit. Where one
// dimension alone would fill a level, every link below it carries the other operand whole (board
// 512×512×4096: each L2B's down link A's 2 MiB); a 4 × 4 L2B carries a quarter of each.
struct Assignment {
  struct Use {
    std::size_t level = 0;
    std::uint64_t size = 1;
    bool operator==(const Use& o) const { return level == o.level && size == o.size; }
  };
  std::vector<Use> m, n, k;
  bool fixed_m = false, fixed_n = false, fixed_k = false;  // given by the user, kept by the planner
};

// The units `uses` takes of `level` (0 where it takes none): for a shared level, the other
// dimension's digit.
inline std::uint64_t units_at(const std::vector<Assignment::Use>& uses, std::size_t level) {
  for (const auto& u : uses)
    if (u.level == level) return u.size;
  return 0;
}

// The tiling choices of a level assignment: C split into `extra_m_passes` times the passes the LM
// needs and then `pass_splits` more times (each halves the longer side of the tile, as the LM's own
// splits do), K in at least `min_steps` steps, and `buffers` LM buffers per streamed operand (2: a
// step's loads overlap the MACs of the step before; 3: of the two before, which hides the loads'
// path latency where loads and MACs take about as long, at the price of a smaller K step).
//
// `charge_first_pass`: the estimate charges the first pass's steps a share of a store as it does
// the later passes'. The short list's planners set it (the windows' planners, which choose by the
// estimate of plain loads): it underprices their passes, and this charge keeps their choices (the
// Fashion CNN on mncore-board at 9.1 cycles per image; 23.1 without it).
//
// `stationary`: one operand's tiles stay in the LM over the passes that share them (one slot per K
// step instead of `buffers`), so only the first of those passes loads them and the operand crosses
// DRAM once, not once per pass. B stays over a column block's M passes (the passes' usual order, N
// blocks outer); A over a row block's N passes (the passes then run M blocks outer). The passes
// after the first then load one operand, which leaves DRAM to the stores of the pass before.
enum class Stationary { kNone, kA, kB };
const char* stationary_name(Stationary s);  // "none", "A", "B" (as plan files spell it)

struct Tiling {
  std::uint64_t extra_m_passes = 1, min_steps = 1, pass_splits = 0, buffers = 2;
  bool charge_first_pass = false;
  Stationary stationary = Stationary::kNone;
  bool operator==(const Tiling& o) const {
    return extra_m_passes == o.extra_m_passes && min_steps == o.min_steps && pass_splits == o.pass_splits &&
           buffers == o.buffers && charge_first_pass == o.charge_first_pass && stationary == o.stationary;
  }
};

// The most buffers per streamed operand a plan takes.
inline constexpr std::uint64_t kMaxBuffers = 3;

struct QgemmPlan {
  Assignment assignment;
  std::uint64_t pm = 1, pn = 1, pk = 1;  // units along M, N, K
  std::uint64_t tm = 0, tn = 0;          // C tile per PE and pass
  std::uint64_t kt = 0;                  // K per PE and step
  std::uint64_t m_passes = 1, n_passes = 1, steps = 0;
  std::string reduce_level;  // where K partial sums meet ("" when pk = 1; "board" when K spans all)
  // A pass's C rows are stored in this many pieces (it divides tm): piece i holds LM rows
  // [i·tm/pieces, (i+1)·tm/pieces) of every PE's tile. So that a piece is one block of C, a pass's
  // rows are interleaved: row i·pm·(tm/pieces) + u·(tm/pieces) + r of the block is on M unit u.
  std::uint64_t row_pieces = 1;
  // LM byte offsets (the same in every PE). The per-column vectors have `buffers` buffers (a column
  // block's loads take the next in turn: the lookahead issues up to buffers − 1 steps of loads ahead
  // of a pass's requant, which may be a later pass's with one K step per pass) when there are
  // several column blocks, else all entries are the same. Where
  // K is split the reduce works in place, and with several passes, passes alternate between two
  // accumulators so that the next pass's MACs need not wait for the reduce; else both entries are
  // the same.
  std::uint64_t lm_acc[2] = {0, 0}, lm_out[2] = {0, 0};
  std::uint64_t lm_bias[kMaxBuffers] = {}, lm_mult[kMaxBuffers] = {}, lm_shift[kMaxBuffers] = {};
  // The streamed operands' buffers: step s loads into buffer s % buffers. A packed W (tgemm) is
  // loaded into lm_w and decoded into two lm_b buffers (s % 2), which the MACs read.
  std::uint64_t buffers = 2;
  std::uint64_t lm_a[kMaxBuffers] = {}, lm_b[kMaxBuffers] = {};
  std::uint64_t lm_w[kMaxBuffers] = {};
  // A stationary operand (Tiling::stationary, where there are several passes to keep it over): K
  // step s's tile lies at lm_a[0] (or lm_b[0]) + s·slot in every pass that shares it, and only the
  // first of those passes loads it.
  Stationary stationary = Stationary::kNone;
  std::uint64_t slot = 0;
  std::uint64_t lm_bytes = 0;  // LM bytes per PE the plan uses
  double estimated_cycles = 0;
  Tiling tiling;  // the tiling choice it was made with
  // A network layer's activations in the LMs (kernels/chain): with a_resident, the MACs read A in
  // place at that LM offset (resident_layout_a) and nothing loads it; with c_resident, the requant
  // leaves C at that offset (resident_layout_c) and nothing stores it.
  std::optional<std::uint64_t> a_resident, c_resident;
  // A convolution's windowed A loads expanded at the PEs (program::Load::halo): each PE's halo
  // patches in two buffers of halo_patch bytes from this LM offset (alternating as the A buffers, so
  // that a load need not wait for the one before to be expanded). None: the loader's im2col.
  std::optional<std::uint64_t> lm_halo;
  std::uint64_t halo_patch = 0;
};

// Where global step `step`'s A tile and B tile (int8 B, or unpacked trits) lie: their buffers, or
// for a stationary operand its step's slot.
inline std::uint64_t a_tile_lm(const QgemmPlan& p, std::uint64_t step) {
  return p.stationary == Stationary::kA ? p.lm_a[0] + (step % p.steps) * p.slot : p.lm_a[step % p.buffers];
}
inline std::uint64_t b_tile_lm(const QgemmPlan& p, std::uint64_t step) {
  return p.stationary == Stationary::kB ? p.lm_b[0] + (step % p.steps) * p.slot : p.lm_b[step % p.buffers];
}
// The passes that load A and those that load B: all, or for a stationary operand one per block
// that shares it (per group).
std::uint64_t a_loading_passes(const QgemmProblem& p, const QgemmPlan& plan);
std::uint64_t b_loading_passes(const QgemmProblem& p, const QgemmPlan& plan);
// The tail pieces: the last pass's last K step runs its MACs, requant and store one row piece at a
// time, so that C's last store overlaps the MACs of the pieces after it instead of following them
// all. Where C goes to DRAM in row pieces (several passes) and K is not split (a reduce per piece
// would wait on the whole subtree's MACs); else 1, the step whole.
std::uint64_t tail_pieces(const QgemmPlan& plan);
// The tile rows the MACs of a pass over `bm` rows of its M block compute: tm, or where C is in row
// pieces only the pieces that hold its rows (block row i·pm·tr + u·tr + j lies in piece i, so a
// ragged last block's trailing pieces are padding in every PE).
std::uint64_t pass_tile_rows(const QgemmPlan& plan, std::uint64_t bm);
// The rows of C in the last M block.
std::uint64_t last_block_rows(const QgemmProblem& p, const QgemmPlan& plan);

// Why a candidate plan cannot work (the planner's cheap checks, before a program is built).
enum class Prune {
  kTooManyUnits,     // a dimension split over more units than it has elements (twice, for M and N)
  kPartialKSplit,    // K over part of a level: the tree sums over whole subtrees
  kKSplitNotLowest,  // K over levels that are not the lowest ones
  kUnitsOverFanout,  // a level asked for more units than it has
  kTileTooLarge,     // not even a 1-row C tile fits the LM
  kLmOverflow,       // the buffers need more LM than there is
  kLayout,           // a tile layout does not bind
  kDuplicate,        // the same plan as an earlier candidate (another tiling choice came to it)
  kBound,            // its lower bound is above the best estimate: it cannot win
  kNoFurtherSplit,   // C's tile splits no further (one row, one LM word)
  kReduceWait,       // three buffers where K is split over several passes (gemm_search.cpp says why)
};
const char* prune_name(Prune reason);  // "K split over part of a level", ...

struct Rejection {
  Prune reason = Prune::kLayout;
  std::string message;  // one line, naming the level or the bytes at fault
};

// Units a dimension is split over: the product of its uses' sizes.
inline std::uint64_t units_of(const std::vector<Assignment::Use>& uses) {
  std::uint64_t p = 1;
  for (const auto& u : uses) p *= u.size;
  return p;
}

// Elements per LM address: tile rows (kt, tn) are whole numbers of addresses.
inline std::uint64_t lm_words(const machine::MachineConfig& m) {
  return m.pe.words_per_address > 1 ? m.pe.words_per_address : 1;
}

// Checks the problem on its own (sizes, dtypes, zero points, output stage); throws QgemmError.
void check_problem(const QgemmProblem& problem);

// The plan for a given level assignment, with the largest K step that fits the LM (but at least
// `tiling.min_steps` steps) and as few passes as needed (times `extra_m_passes`, then split
// `pass_splits` more times); throws QgemmError when the
// assignment cannot work (a C tile that cannot fit, K split over levels that are not the lowest ones at full
// fan-out, ...).
QgemmPlan make_plan(const QgemmProblem& problem, const machine::MachineConfig& machine,
                    const Assignment& assignment, const Tiling& tiling = {});

// An assignment's own checks, which no tiling mends: K over whole lowest levels, no level asked for
// more units than it has. On success, the level where K's partial sums meet ("" without a K split,
// "board" where K spans every level). Past them, a plan's shape depends on its unit counts alone.
std::variant<std::string, Rejection> check_assignment(const machine::MachineConfig& machine,
                                                      const Assignment& assignment);

// make_plan's tiles, steps and LM map without its estimate; what cannot work is a Rejection.
std::variant<QgemmPlan, Rejection> try_shape_plan(const QgemmProblem& problem,
                                                  const machine::MachineConfig& machine,
                                                  const Assignment& assignment, const Tiling& tiling);

// Sets plan.estimated_cycles, the analytic estimate of the program build_program emits; a tile
// layout that does not bind is a Rejection (kLayout).
std::optional<Rejection> estimate_plan(const QgemmProblem& problem, QgemmPlan& plan,
                                       const machine::MachineConfig& machine);

// The planners' search over every assignment of the free levels (those `fixed` leaves) to M, N, K or
// none, at full fan-out, or with the root-most level whose fan-out splits into a grid shared by M
// and N (Assignment), and for each over its whole
// feasible tiling range: C in as few passes as the LM allows times 1, 2, 3 (not where K is split) or 4, split
// any number of times more, no operand, B or A kept over the passes, and K in every step count the LM allows
// (one plan per distinct K step). Candidates are estimated in the order of their lower bound (a pass count's
// bound first, then each step count's) and the search stops where the bound passes the best estimate, which
// no later candidate can beat: the winner is the one an exhaustive search picks, the least estimate and the
// earliest in enumeration order on ties. A plan that fits a machine fits every machine with more memory, so
// growing the LM never worsens the best estimate. kShortList: C in 1, 2 or 4 times the passes the LM needs, K
// in at least 1, 2 or 4 steps, nothing kept — for a planner whose A loads are not the tile loads the estimate
// prices (a convolution's windows, A converted from the LMs), where many small K steps look cheap to the
// estimate and are not: each step's windows cost their own conversion. Such a planner should price its own
// loads in the search. Neither kShortList nor kUnshared (the whole tiling range) shares a level: a chain of
// layers with few candidates per layer takes them by estimate, where many shared plans tie and
// crowd out the layouts that convert cheaply between layers (the die MLP: 10.8 cycles per image
// without them, 11.9 with three candidates per layer). kSharedOnly: the whole tiling range over
// the assignments with a shared level alone — with kUnshared's, kComplete's (whose best is the
// better of the two, kUnshared's on a tie: its assignments come first).
enum class TilingRange { kComplete, kUnshared, kSharedOnly, kShortList };
struct SearchedPlan {
  QgemmPlan plan;
  std::uint64_t order = 0;  // enumeration order (ties go to the smaller)
};
struct PlanSearch {
  std::vector<SearchedPlan> estimated;  // with keep_all: every plan estimated, best first
  std::optional<QgemmPlan> best;
  std::map<Prune, std::uint64_t> pruned;  // by reason
  std::uint64_t enumerated = 0;           // estimated + pruned
  std::string error;                      // with no plan: the last failing candidate's reason
};
PlanSearch search_plans(const QgemmProblem& problem, const machine::MachineConfig& machine,
                        const Assignment& fixed = {}, bool keep_all = false,
                        TilingRange range = TilingRange::kComplete);

// A lower bound of a plan's estimated cycles from closed forms alone, without building a layout:
// the steps (each at least its MAC and (MAC + path latency) / 2) after the first step's DRAM reads
// and before the last store's DRAM writes, or DRAM's time for every tile, plus two path latencies
// and the last requant. The planners prune their search with it.
double estimate_lower_bound(const QgemmProblem& problem, const QgemmPlan& plan,
                            const machine::MachineConfig& machine);
// A lower bound of estimate_lower_bound over every K step count of a plan's passes and tiles.
double passes_lower_bound(const QgemmProblem& problem, const QgemmPlan& plan,
                          const machine::MachineConfig& machine);

// The default planner: search_plans' best; throws QgemmError (the last failing candidate's reason)
// when no plan fits.
QgemmPlan default_plan(const QgemmProblem& problem, const machine::MachineConfig& machine,
                       const Assignment& fixed = {}, TilingRange range = TilingRange::kComplete);

// The assignment read from user layouts of the whole operands (any may be empty): the level
// sub-axes of A's axis 0 and C's axis 0 distribute M, of A's axis 1 and B's axis 0 K, of B's axis
// 1 and C's axis 1 N. Throws layout::LayoutError for an invalid layout and QgemmError for layouts
// that disagree or are not GEMM operand layouts.
Assignment assignment_from_layouts(const QgemmProblem& problem, const machine::MachineConfig& machine,
                                   const std::string& layout_a, const std::string& layout_b,
                                   const std::string& layout_c);

// How every layout of the kernel names an assignment's levels (sim/layout/matrix.h's LevelSplit):
// a dimension's levels with their units (a shared level's digit with its stride, u_n along M and 1
// along N; 0, the default, for a level one dimension owns), and the copies of A over the shared
// levels' N digits (`over` N) or of B and the column vectors over their M digits (`over` M).
enum class GemmDim { kM, kN, kK };
std::vector<layout::LevelSplit> level_splits(const Assignment& a, GemmDim d, const machine::MachineConfig& m);
std::vector<layout::LevelSplit> shared_copies(const Assignment& a, GemmDim over,
                                              const machine::MachineConfig& m);

// The layouts of the whole operands under a plan (what a user would pass as --layout-a/-b/-c to
// get the same plan), and the tile layouts the program streams.
std::string whole_layout_a(const QgemmProblem& p, const QgemmPlan& plan, const machine::MachineConfig& m);
std::string whole_layout_b(const QgemmProblem& p, const QgemmPlan& plan, const machine::MachineConfig& m);
std::string whole_layout_c(const QgemmProblem& p, const QgemmPlan& plan, const machine::MachineConfig& m);

// The layouts of the tiles the program streams, for a block of rows×cols logical elements (a pad
// prefix pads a smaller block to the full tile), as values (layout::matrix: no text parsed). A's
// and C's interleave rows by the plan's row pieces. C's pins the K levels to unit 0, where the
// reduced sums are.
layout::TensorLayout tile_layout_a(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                                   std::uint64_t cols);
layout::TensorLayout tile_layout_b(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                                   std::uint64_t cols);
layout::TensorLayout tile_layout_c(const QgemmPlan& p, const machine::MachineConfig& m, std::uint64_t rows,
                                   std::uint64_t cols);
// `pieces` consecutive row pieces of C (rows×cols logical elements), as one store writes them from
// the LM address of their first piece; tile_layout_c is all row_pieces of them.
layout::TensorLayout tile_layout_c_pieces(const QgemmPlan& p, const machine::MachineConfig& m,
                                          std::uint64_t pieces, std::uint64_t rows, std::uint64_t cols);
layout::TensorLayout tile_layout_vector(const QgemmPlan& p, const machine::MachineConfig& m,
                                        std::uint64_t cols);

// A network layer's activations left in the LMs. Resident A is every A tile the MACs read, m block
// after m block and K step after K step (tm×kt bytes each, laid out as a step's load would place
// it); resident C is every pass's requantized tile (tm×tn bytes), in the program's pass order (N
// blocks outer, or with A kept M blocks outer). The layouts are of the whole tensor; the byte counts are per
// PE.
std::string resident_layout_a(const QgemmProblem& p, const QgemmPlan& plan, const machine::MachineConfig& m);
std::string resident_layout_c(const QgemmProblem& p, const QgemmPlan& plan, const machine::MachineConfig& m);
std::uint64_t resident_bytes_a(const QgemmProblem& p, const QgemmPlan& plan);
// The LM offset of the resident A tile that K step `step` of the pass starting at row `m0` reads.
std::uint64_t resident_a_tile(const QgemmPlan& plan, std::uint64_t m0, std::uint64_t step);
std::uint64_t resident_bytes_c(const QgemmProblem& p, const QgemmPlan& plan);
// `plan` (of any planner) reshaped so that its buffers leave room in the LM for resident A (when
// `a`) and resident C (when `c`), with its assignment and tiling choice kept, flagged resident
// (offsets 0: kernels/chain places them) and estimated; a Rejection when no K step fits beside them.
// `leave`: more LM bytes to keep free (for a neighbour's region).
std::variant<QgemmPlan, Rejection> resident_plan(const QgemmProblem& p, const QgemmPlan& plan,
                                                 const machine::MachineConfig& m, bool a, bool c,
                                                 std::uint64_t leave = 0);
// The blocks of rows and of columns of C that the passes cover (the program's passes: N blocks
// outer, M blocks inner).
std::uint64_t m_blocks(const QgemmProblem& p, const QgemmPlan& plan);
std::uint64_t n_blocks(const QgemmProblem& p, const QgemmPlan& plan);

// A human description: levels → dims, tiles, steps, passes, LM use.
std::string describe(const QgemmPlan& plan, const machine::MachineConfig& machine);

// The program: tensors A (M×K), B (K×N), C (M×N, out dtype), and when used bias, multiplier and
// shift (N int32 each); C holds the result after the run.
// The requant of pass `pass`'s accumulators into its output buffer (its resident C tile when C is
// resident), with the bias and per-channel parameters of vector buffer `v` (the column block's):
// shared by qgemm's and tgemm's schedules.
program::Requant requant_of(const QgemmProblem& prob, const QgemmPlan& plan, std::uint64_t pass,
                            std::size_t v);

// Where the operands lie when they are not qgemm's own A (M×K), B (K×N) and C (M×N): the problem's
// `groups` GEMMs side by side, as a grouped convolution runs them (kernels/conv2d). Group
// g's B, C, bias and per-column requant parameters are columns [g·N, (g+1)·N) of tensors groups·N
// wide, and its A is tensor A of shape `a_shape` read through `a_window` (when given) with channels
// from g·a_window.channels. The groups' passes run as one pipeline, group after group. With one
// column per group (N = 1, depthwise) and per-channel requant, `group_multipliers` gives each group's
// multiplier, which its requant instructions hold.
// A tensor one program unit leaves in the LMs for the next (kernels/graph keeps a convolution's output
// there for the next convolution's windows or the dense layer after it): its layout over the whole
// tensor (declared `shape`), its LM offset and its bytes per PE.
struct LmTensor {
  layout::TensorLayout layout;
  std::uint64_t lm = 0, bytes = 0;
  std::vector<std::uint64_t> shape;
};

struct GemmOperands {
  std::optional<program::Window> a_window;
  std::vector<std::uint64_t> a_shape;
  std::vector<numeric::QuantizedMultiplier> group_multipliers;
  // With a window: A already lies in the LMs (the convolution before left its output there); each A
  // tile is a windowed convert of it (program::Convert::window) instead of a load, the window reading
  // it as `a_shape`, and tensor A is declared with its shape.
  std::optional<LmTensor> a_in_lm;
};

// A as the window matrix of a 1×1 window over [M, 1, 1, K]: the same matrix, for a GEMM whose A
// is read by a windowed convert (a flattened convolution output in the LMs).
program::Window whole_rows_window(std::uint64_t k);

}  // namespace treesim::kernels
