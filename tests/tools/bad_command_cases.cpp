// Bad options of place, layout, dpt, quant, topology and the command line itself.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/numeric/dpt_file.h"
#include "tests/tools/bad_input_cases.h"

namespace treesim::testing {
namespace {

const std::string kLayout = "((4_PE, 3:8), (8:1))";

BadInput place(std::string name, std::vector<std::string> extra, std::string fragment) {
  std::vector<std::string> args = {"place", "--machine", "@M", "--report", "@D/r.json", "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  return {"Place" + name, args, {}, std::move(fragment)};
}

BadInput layout(std::string name, std::vector<std::string> args, std::string fragment) {
  args.insert(args.begin(), {"layout"});
  args.insert(args.end(), {"--machine", "@M"});
  return {"Layout" + name, args, {}, std::move(fragment)};
}

// A 12×8 int8 ternary .npy (all zeros) for dpt pack.
std::string ternary_npy() {
  const std::string dict = "{'descr': '|i1', 'fortran_order': False, 'shape': (12, 8), }\n";
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size());
  out += '\0';
  return out + dict + std::string(96, '\0');
}

// A version 1.0 .npy header of `descr` and `shape` (the data follows it).
std::string npy_header(const std::string& descr, const std::string& shape) {
  const std::string dict = "{'descr': " + descr + ", 'fortran_order': False, 'shape': " + shape + ", }\n";
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size());
  out += '\0';
  return out + dict;
}

const std::string kQuant = "a_zero_point: 0\nb_zero_point: 0\nout_zero_point: 0\n";

BadInput gemm(std::string name, std::string quant, std::string fragment, std::string out = "@D/c.npy") {
  return {std::move(name),
          {"quant", "gemm", "--a", "@D/a.npy", "--b", "@D/a.npy", "--quant", "@D/q.yaml", "--out", out},
          {{"q.yaml", std::move(quant)}, {"a.npy", ternary_npy()}},
          std::move(fragment)};
}

// A plan file's tiling fields (cases about its split).
constexpr const char* kPlanTilings =
    "m_passes_factor: 1\npass_splits: 0\nmin_k_steps: 1\nbuffers: 2\nstationary: none\n";

}  // namespace

std::vector<BadInput> command_cases() {
  const std::string huge(100000, '9');
  return {
      place("ShapeOverflowsStoull", {"--shape", "99999999999999999999", "--layout", kLayout}, "--shape"),
      place("ShapeSizeOverflows", {"--shape", "4294967296,4294967296", "--layout", kLayout}, "--shape"),
      place("ShapeZero", {"--shape", "0", "--layout", kLayout}, "--shape: expected positive sizes"),
      place("ShapeIsCut", {"--shape", huge, "--layout", kLayout}, "..."),
      place("ShapeLargerThanDram", {"--shape", "1073741825", "--layout", kLayout},
            "--shape: expected a tensor that fits"),
      place("DtypeWithNewline", {"--shape", "12,8", "--dtype", "int\n8", "--layout", kLayout},
            "got 'int\\n8'"),
      place("SeedMinus1", {"--shape", "12,8", "--layout", kLayout, "--seed", "-1"}, "--seed"),
      place("VcdDepthNotANumber", {"--shape", "12,8", "--layout", kLayout, "--vcd-depth", "x"},
            "--vcd-depth"),
      place("VcdInMissingFolder", {"--shape", "12,8", "--layout", kLayout, "--vcd", "@D/no/t.vcd"},
            "--vcd: cannot write '@D/no/t.vcd'"),
      {"PlanFileSplitsALevelOverKAndM",
       {"run", "qgemm", "--machine", "@M", "--m", "64", "--n", "64", "--k", "64", "--plan-file", "@D/p.yaml"},
       {{"p.yaml",
         "kernel: qgemm\nmachine: mini\nm: 64\nn: 64\nk: 64\nsplit: {M: [MAB/2], N: [], K: [MAB]}\n" +
             std::string(kPlanTilings)}},
       "@D/p.yaml:6: 'split.K': level MAB is split twice"},
      {"PlanFileSharesMoreUnitsThanALevelHas",
       {"run", "qgemm", "--machine", "@M", "--m", "64", "--n", "64", "--k", "64", "--plan-file", "@D/p.yaml"},
       {{"p.yaml",
         "kernel: qgemm\nmachine: mini\nm: 64\nn: 64\nk: 64\nsplit: {M: [MAB/4], N: [MAB/2], K: []}\n" +
             std::string(kPlanTilings)}},
       "the plan cannot work: MAB uses 8 units but has 4"},
      {"PlaceReportInMissingFolder",
       {"place", "--machine", "@M", "--shape", "12,8", "--layout", kLayout, "--report", "@D/no/r.json"},
       {},
       "--report: cannot write '@D/no/r.json': its folder does not exist"},
      {"PlaceReportIsADirectory",
       {"place", "--machine", "@M", "--shape", "12,8", "--layout", kLayout, "--report", "@D"},
       {},
       "--report: cannot write"},
      layout("ShapeOverflowsStoull", {"show", kLayout, "--shape", "99999999999999999999,8"}, "--shape"),
      layout("IndexOverflowsStoull", {"locate", kLayout, "--index", "99999999999999999999999"}, "--index"),
      layout("IndexEmptyItem", {"locate", kLayout, "--index", "1,,2"}, "--index"),
      layout("UnitWithoutIndex", {"inverse", kLayout, "--unit", "PE=", "--addr", "0"}, "--unit PE"),
      layout("UnitIndexOverflows", {"inverse", kLayout, "--unit", "PE=99999999999999999999", "--addr", "0"},
             "--unit PE"),
      layout("UnitOfUnknownLevel", {"inverse", kLayout, "--unit", "XX=1", "--addr", "0"}, "--unit"),
      layout("PeMinus1", {"inverse", kLayout, "--pe", "-1", "--addr", "0"}, "--pe"),
      layout("AddrMinus1", {"inverse", kLayout, "--addr", "-1"}, "--addr"),
      layout("AddrHuge", {"inverse", kLayout, "--addr", "1e400"}, "--addr"),
      layout("DtypeBogus", {"show", kLayout, "--dtype", "bogus\x7f"}, "--dtype: expected int8"),
      {"DptUnpackDevZero",
       {"dpt", "unpack", "--in", "/dev/zero", "--out", "@D/w.npy"},
       {},
       "/dev/zero: not a regular file"},
      {"DptUnpackDirectory",
       {"dpt", "unpack", "--in", "@D", "--out", "@D/w.npy"},
       {},
       "is a directory, expected a .dpt file"},
      {"DptUnpackMissing",
       {"dpt", "unpack", "--in", "@D/none.dpt", "--out", "@D/w.npy"},
       {},
       "does it exist?"},
      {"DptUnpackTooLarge",
       {"dpt", "unpack", "--in", "@D/w.dpt", "--out", "@D/w.npy"},
       {{"w.dpt", "<sparse:268435457>"}},
       "larger than 256 MiB"},
      {"DptUnpackNotDpt",
       {"dpt", "unpack", "--in", "@D/w.dpt", "--out", "@D/w.npy"},
       {{"w.dpt", "hello\n"}},
       "not a .dpt file"},
      {"DptPackOutInMissingFolder",
       {"dpt", "pack", "--in", "@D/w.npy", "--out", "@D/no/w.dpt"},
       {{"w.npy", ternary_npy()}},
       "--out: cannot write '@D/no/w.dpt'"},
      {"DptPackAxisHuge",
       {"dpt", "pack", "--in", "@D/w.npy", "--out", "@D/w.dpt", "--axis", "99999999999999999999"},
       {{"w.npy", ternary_npy()}},
       "--axis"},
      {"DptPackNpyIsDevZero",
       {"dpt", "pack", "--in", "/dev/zero", "--out", "@D/w.dpt"},
       {},
       "not a regular file"},
      {"DptPackNpyTooLarge",
       {"dpt", "pack", "--in", "@D/w.npy", "--out", "@D/w.dpt"},
       {{"w.npy", "<sparse:1073741825>"}},
       "larger than 1 GiB"},
      {"DptDecodeEscapes", {"dpt", "decode", "0x\x1b"}, {}, "got '0x\\x1B'"},
      {"DptEncodeIsCut", {"dpt", "encode", huge}, {}, "..."},
      gemm("QuantIsDevZeroViaLink", "<link:/dev/zero>", "not a regular file"),
      gemm("QuantScalesMakeInfinity",
           kQuant + "a_scale: 3e38\nb_scale: 3e38\nout_scale: 1\nscale_product: float32\n",
           "field 'b_scale': the multiplier a_scale·b_scale/out_scale is inf"),
      gemm("QuantHexFloatScale", kQuant + "a_scale: 0x1p-3\nb_scale: 0.5\nout_scale: 1\n", "a_scale"),
      gemm("QuantShift64", kQuant + "multiplier: 1073741824\nshift: 64\n", "field 'shift'"),
      gemm("QuantOutInMissingFolder", kQuant + "multiplier: 1073741824\nshift: 0\n", "--out: cannot write",
           "@D/no/c.npy"),
      gemm("QuantFileTooLarge", "<sparse:2097152>", "larger than 1 MiB"),
      gemm("QuantUnknownKeyIsCut", kQuant + std::string(500, 'q') + ": 1\n", "..."),
      {"QuantFileIsADirectory",
       {"quant", "gemm", "--a", "@D/a.npy", "--b", "@D/a.npy", "--quant", "@D", "--out", "@D/c.npy"},
       {{"a.npy", ternary_npy()}},
       "is a directory, expected a quantization file"},
      {"MbqmShift64",
       {"quant", "mbqm", "--x", "1", "--multiplier", "1073741824", "--shift", "64"},
       {},
       "--shift"},
      {"MbqmShiftInt32Max",
       {"quant", "mbqm", "--x", "0", "--multiplier", "1073741824", "--shift", "2147483647"},
       {},
       "--shift"},
      {"MbqmShift40OfZero",
       {"quant", "mbqm", "--x", "0", "--multiplier", "1073741824", "--shift", "40"},
       {},
       "left shift 40"},
      {"MultiplierHexFloat", {"quant", "multiplier", "0x1p-3"}, {}, "expected a finite real number"},
      {"MultiplierOverflows", {"quant", "multiplier", "1e400"}, {}, "expected a finite real number"},
      {"TopologyDepthMinus1", {"topology", "--dot", "--machine", "@M", "--depth", "-1"}, {}, "--depth"},
      {"TopologyOutInMissingFolder",
       {"topology", "--dot", "--machine", "@M", "--out", "@D/no/t.dot"},
       {},
       "--out: cannot write '@D/no/t.dot'"},
      {"UnknownCommand", {"frobnicate"}, {}, "got 'frobnicate'"},
      {"UnknownSubcommand",
       {"layout", "frob"},
       {},
       "layout: expected one of show, locate, inverse, convert, got 'frob'"},
      {"UnknownOption", {"info", "--machine", "@M", "--frob"}, {}, "info: unknown option '--frob'"},
      {"MisspeltOptionNamesTheClosest",
       {"run", "qgemm", "--machine", "@M", "--mm", "64"},
       {},
       "run qgemm: unknown option '--mm' (did you mean '--m'?)"},
      {"EmptyMachinePath",
       {"info", "--machine", ""},
       {},
       "--machine: expected a machine file (YAML), got an empty path"},
      {"MissingGemmSizeIsNamed",
       {"run", "qgemm", "--machine", "@M", "--m", "8", "--n", "8"},
       {},
       "--k is missing: give --m, --n and --k"},
      {"NoCommand", {}, {}, "expected one of info"},
      // An option without its value takes the next option as its value: name the option.
      {"OptionWithoutItsValue",
       {"run", "qgemm", "--machine", "@M", "--m", "--n", "4", "--k", "8"},
       {},
       "--m: expected a value, got the option '--n'"},
      // yaml-cpp's message quotes the character it could not read, raw: a NUL after a backslash
      // made a two-line message (found by the sweep_spec fuzzer). Every YAML reader echoes it.
      {"SweepSpecYamlErrorQuotesARawCharacter",
       {"sweep", "@D/s.yaml", "--out", "@D/out"},
       {{"s.yaml", std::string("machine: m.yaml\nkernel: \"a\\\0\"\n", 30)}},
       "@D/s.yaml:2:13: not valid YAML: unknown escape character: \\x00"},
      // A 56-byte .dpt of shape 0 × 2^40: no payload, but unpacking sized a line by 2^40 trits.
      {"DptEmptyShapeWithAHugeLine",
       {"dpt", "unpack", "--in", "@D/w.dpt", "--out", "@D/w.npy"},
       {{"w.dpt", numeric::to_dpt_file_bytes(numeric::PackedTernary{{0, std::uint64_t{1} << 40}, 1, {}})}},
       "@D/w.dpt: shape 0×1099511627776 spans more than 1342177280 weights"},
      // tune chain refuses what run chain refuses: a chain that cannot fit the machine's DRAM.
      {"TuneChainWiderThanTheDram",
       {"tune", "chain", "@D/s.yaml", "--machine", "@M"},
       {{"s.yaml", "m: 16\nwidths: [999999999999, 8]\n"}},
       "@D/s.yaml: the chain needs 24000000000136 bytes of DRAM for its activations and weights, the machine "
       "has "
       "1073741824"},
      {"TuneChainTallerThanTheDram",
       {"tune", "chain", "@D/s.yaml", "--machine", "@M", "--out", "@D/p.yaml"},
       {{"s.yaml", "m: 999999999999\nwidths: [8, 8]\n"}},
       "@D/s.yaml: the chain needs 16000000000080 bytes of DRAM"},
      // Operand files: an empty matrix, and a quantization file whose list has the wrong length,
      // name the file (not a GEMM dimension the user never gave).
      {"QgemmOperandWithNoRows",
       {"run", "qgemm", "--machine", "@M", "--a", "@D/a.npy", "--b", "@D/b.npy", "--quant", "@D/q.yaml"},
       {{"a.npy", npy_header("'|i1'", "(0, 8)")},
        {"b.npy", npy_header("'|i1'", "(8, 4)") + std::string(32, '\0')},
        {"q.yaml", "a_zero_point: 0\nb_zero_point: 0\nmultiplier: 1073741824\nshift: 0\n"}},
       "@D/a.npy: expected a matrix of at least one row and one column, got shape (0, 8)"},
      {"QgemmQuantListOfTheWrongLength",
       {"run", "qgemm", "--machine", "@M", "--a", "@D/a.npy", "--b", "@D/b.npy", "--quant", "@D/q.yaml"},
       {{"a.npy", npy_header("'|i1'", "(2, 8)") + std::string(16, '\0')},
        {"b.npy", npy_header("'|i1'", "(8, 4)") + std::string(32, '\0')},
        {"q.yaml",
         "a_zero_point: 0\nb_zero_point: 0\nmultiplier: [1073741824, 1073741824, 1073741824]\n"
         "shift: [0, 0, 0]\n"}},
       "@D/q.yaml: field 'multiplier': 3 values, expected 1 (per tensor) or N = 4 (one per output column)"},
      {"MissingRequiredOption", {"info"}, {}, "--machine: expected a value, got none"},
      {"MissingOptionValue", {"info", "--machine"}, {}, "--machine"},
      {"ExtraArgumentIsCut", {"info", "--machine", "@M", huge}, {}, "..."},
      {"ExtraArgumentIsEscaped", {"info", "--machine", "@M", "a\nb"}, {}, "got 'a\\nb'"},
  };
}

}  // namespace treesim::testing
