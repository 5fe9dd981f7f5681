// Bad programs and exec options: refused before anything is simulated or allocated, and no
// output (--report, --vcd, --output) is left behind.
#include <string>

#include "tests/tools/bad_input_cases.h"

namespace treesim::testing {
namespace {

const std::string kGood =
    "tensor A shape=12,8 dtype=int8\n"
    "tensor B shape=12,8 dtype=int8\n"
    "load tensor=A layout=\"((4_PE, 3:8), (8:1))\" lm=0\n"
    "store tensor=B layout=\"((4_PE, 3:8), (8:1))\" lm=0\n";

// exec of `program` with the outputs every case must not leave behind.
BadInput exec(std::string name, std::string program, std::string fragment,
              std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"exec", "@D/p.txt", "--machine", "@M", "--report", "@D/r.json", "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  return {"Exec" + name, args, {{"p.txt", std::move(program)}}, std::move(fragment)};
}

// A version 1.0 .npy file whose header is `dict` (no data).
std::string npy(const std::string& dict) {
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

std::string requant(const std::string& params) {
  return "tensor A shape=12,8 dtype=int8\nrequant src=0 dst=64 rows=1 cols=1 " + params + "\n";
}

}  // namespace

std::vector<BadInput> program_cases() {
  return {
      exec("TensorLargerThanDram", "tensor A shape=1000000000000\n" + kGood.substr(kGood.find('\n') + 1),
           "p.txt: tensor 'A': expected the program's tensors to fit the machine's DRAM"),
      exec("TensorsTogetherLargerThanDram",
           "tensor A shape=1073741000\ntensor C shape=1000000\n" + kGood.substr(kGood.find('\n') + 1),
           "tensor 'C'"),
      exec("TensorSizeOverflows64Bits", "tensor A shape=4294967296,4294967296\n", "p.txt:1: field 'shape'"),
      exec("TensorInt32SizeOverflows", "tensor A shape=4611686018427387904 dtype=int32\n",
           "overflows 64 bits"),
      exec("CrlfBadDtypeNamesTheValue", "tensor A shape=4 dtype=int9\r\n", "got 'int9'"),
      exec("UnknownInstructionIsCut", std::string(100000, 'x') + " a=1\n", "..."),
      exec("ControlCharacterInValueIsEscaped", "tensor A shape=4 dtype=in\x1bt8\n", "\\x1B"),
      exec("RequantShift64", requant("multiplier=1073741824 shift=64"), "left shift 64"),
      exec("RequantShiftInt32Max", requant("multiplier=1073741824 shift=2147483647"),
           "left shift 2147483647"),
      exec("RequantShiftMinus40", requant("multiplier=1073741824 shift=-40"), "right shift 40"),
      exec("RequantSingleRoundingShift31", requant("multiplier=1073741824 shift=31 rounding=single"),
           "[-31, 30]"),
      exec("ConvertBetweenOverlappingRanges",
           kGood.substr(0, kGood.find("store")) +
               "convert tensor=A from=\"((4_PE, 3:8), (8:1))\" src=0 to=\"((3:8, 4_PE), (8:1))\" dst=8\n",
           "src [0, 24) and dst [8, 32) overlap"),
      exec("ConvertOfAnUndeclaredTensor",
           "convert tensor=Z from=\"((4_PE, 3:8), (8:1))\" src=0 to=\"((3:8, 4_PE), (8:1))\" dst=64\n",
           "tensor 'Z' is not declared"),
      exec("ConvertToALayoutOfAnotherShape",
           kGood.substr(0, kGood.find("store")) +
               "convert tensor=A from=\"((4_PE, 3:8), (8:1))\" src=0 to=\"((4_PE, 2:8), (8:1))\" dst=64\n",
           "E040"),
      exec("MacZeroPointOutsideItsType", "tensor A shape=4\nmac a=0 b=16 c=32 m=4 n=4 k=4 a_zero=40000\n",
           "a_zero=40000 is outside int8's range [-128, 127]"),
      exec("TernaryMacZeroPointOutsideItsType",
           "tensor A shape=4\nternary_mac a=0 w=16 c=32 m=4 n=4 k=4 a_dtype=uint8 a_zero=-1\n",
           "a_zero=-1 is outside uint8's range [0, 255]"),
      exec("TensorDeclaredTwice", "tensor A shape=4\ntensor A shape=4\n", "declared twice"),
      exec("SeedMinus1", kGood, "--seed: expected a non-negative integer, got '-1'", {"--seed", "-1"}),
      exec("SeedTooLarge", kGood, "--seed: expected a non-negative integer",
           {"--seed", "99999999999999999999999"}),
      exec("SeedNotANumber", kGood, "--seed: expected a non-negative integer, got 'abc'", {"--seed", "abc"}),
      exec("VcdDepthMinus1", kGood, "--vcd-depth", {"--vcd-depth", "-1"}),
      exec("InputWithoutFile", kGood, "--input: expected NAME=FILE.npy, got 'A'", {"--input", "A"}),
      exec("InputOfUnknownTensor", kGood, "--input: expected a tensor of the program, got 'Z'",
           {"--input", "Z=@D/z.npy"}),
      exec("InputIsDevZero", kGood, "/dev/zero: not a regular file", {"--input", "A=/dev/zero"}),
      exec("InputIsADirectory", kGood, "is a directory, expected a .npy file", {"--input", "A=@D"}),
      exec("OutputOfUnknownTensor", kGood, "--output: expected a tensor of the program, got 'Z'",
           {"--output", "Z=@D/z.npy"}),
      exec("OutputInMissingFolder", kGood, "--output: cannot write '@D/no/b.npy': its folder does not exist",
           {"--output", "B=@D/no/b.npy"}),
      exec("VcdInMissingFolder", kGood, "--vcd: cannot write", {"--vcd", "@D/no/t.vcd"}),
      exec("TraceJsonInMissingFolder", kGood, "--trace-json: cannot write", {"--trace-json", "@D/no/t.json"}),
      exec("VcdUnderAFile", kGood, "--vcd: cannot write '@D/p.txt/t.vcd'", {"--vcd", "@D/p.txt/t.vcd"}),
      exec("OutputIsADirectory", kGood, "it is a directory", {"--output", "B=@D"}),
      exec("ReportAndOutputSamePath", kGood, "no other option writes", {"--output", "B=@D/r.json"}),
      exec("OutputAfterReportFails", kGood + "store tensor=B layout=\"((4_PE, 3:8), (8:1))\" lm=99999\n",
           "instruction", {"--output", "B=@D/b.npy", "--vcd", "@D/t.vcd"}),
      {"ReportInMissingFolder",
       {"exec", "@D/p.txt", "--machine", "@M", "--report", "@D/no/r.json"},
       {{"p.txt", kGood}},
       "--report: cannot write '@D/no/r.json': its folder does not exist"},
      {"ProgramIsDevZero", {"exec", "/dev/zero", "--machine", "@M"}, {}, "/dev/zero: not a regular file"},
      {"ProgramIsADirectory", {"exec", "@D", "--machine", "@M"}, {}, "is a directory, expected a program"},
      {"ProgramIsMissing",
       {"exec", "@D/none.txt", "--machine", "@M"},
       {},
       "cannot open the program (does it exist?)"},
      {"ProgramTooLarge",
       {"exec", "@D/p.txt", "--machine", "@M"},
       {{"p.txt", "<sparse:17825792>"}},
       "larger than 16 MiB"},
      {"ProgramIsASymlinkLoop",
       {"exec", "@D/p.txt", "--machine", "@M"},
       {{"p.txt", "<symlink-loop>"}},
       "loop of symbolic links"},
      {"ProgramIsNotReadable",
       {"exec", "@D/p.txt", "--machine", "@M"},
       {{"p.txt", "<mode000>"}},
       "cannot open the program (permission denied)",
       true},
      {"NpyHeaderWithNewline",
       {"exec", "@D/p.txt", "--machine", "@M", "--input", "A=@D/a.npy"},
       {{"p.txt", kGood}, {"a.npy", npy("{'descr': '<i1',\n'bad': 1}\n")}},
       "bad .npy header"},
      {"NpyHeaderIsCut",
       {"exec", "@D/p.txt", "--machine", "@M", "--input", "A=@D/a.npy"},
       {{"p.txt", kGood}, {"a.npy", npy("{'" + std::string(9996, 'k') + "'\n")}},
       "..."},
      exec("LoadPadOutsideInt8",
           "tensor A shape=96,8 dtype=int8\n"
           "load tensor=A layout=\"(6,8)/((4_PE, 2:8), (8:1))\" lm=0 offset=90,0 shape=6,8 pad=999\n",
           "instruction 0 (load): pad=999 is outside int8's range [-128, 127]"),
      exec("ConvertPadOutsideUint8",
           "tensor A shape=12,8 dtype=uint8\nload tensor=A layout=\"((4_PE, 3:8), (8:1))\" lm=0\n"
           "convert tensor=A from=\"((4_PE, 3:8), (8:1))\" src=0 to=\"((3:8, 4_PE), (8:1))\" dst=64 pad=-1\n",
           "instruction 1 (convert): pad=-1 is outside uint8's range [0, 255]"),
      {"NpyDescrWithEscape",
       {"exec", "@D/p.txt", "--machine", "@M", "--input", "A=@D/a.npy"},
       {{"p.txt", kGood}, {"a.npy", npy("{'descr': '\x1b[2J', 'x': 1}\n")}},
       "'\\x1B[2J'"},
  };
}

}  // namespace treesim::testing
