// Parsers meet hostile text: thousands of deterministic mutations of valid layouts, machine files
// and programs must each parse or fail with the parser's own error, never crash or hang. In CI this
// also runs under AddressSanitizer and UndefinedBehaviorSanitizer.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "sim/io/atomic_file.h"
#include "sim/layout/bound_layout.h"
#include "sim/layout/diagnostic.h"
#include "sim/layout/parse.h"
#include "sim/machine/machine_file.h"
#include "sim/program/program_text.h"
#include "tests/configs.h"
#include "tests/test_support.h"
#include "tests/text_mutation.h"

namespace treesim {
namespace {

// The grammar's alphabet: layouts, machine YAML and program text.
std::string mutate(const std::string& seed, std::mt19937_64& gen) {
  static const std::string kAlphabet = "()[],:;_/@B 0123456789PEMABL1L2BWTimex-\n\t{}#\"'=.";
  return testing::mutate_text(seed, kAlphabet, gen);
}

TEST(ParserMutation, LayoutsParseBindOrFailWithADiagnostic) {
  machine::MachineConfig m = testing::config("mini");
  const std::vector<std::string> seeds = {"((4_PE, 3:8), (8:1))",
                                          "(10,7)/((3:7, 4_PE), (7:1))",
                                          "((12:8), (8:1); B@[PE])",
                                          "((2_PE:2, 6:4), (2_PE:1, 4:1))",
                                          "((2_PE:1, 6:8), (8:1); B@[2_PE:2])",
                                          "((2_L1B, 4_MAB, 8:64), (4_PE, 16:1))",
                                          "((3_Time, 4_PE), (8:1))"};
  std::mt19937_64 gen(20261123);
  int parsed = 0, bound = 0;
  for (int i = 0; i < 6000; ++i) {
    const std::string text = mutate(seeds[static_cast<std::size_t>(i) % seeds.size()], gen);
    layout::ParseResult r = layout::parse_layout(text, m);
    if (!r) {
      ASSERT_TRUE(r.error.has_value()) << text;
      EXPECT_FALSE(r.error->code.empty()) << text;
      continue;
    }
    ++parsed;
    EXPECT_EQ(layout::parse_layout(layout::to_string(*r.layout), m).layout, r.layout) << text;
    const std::size_t rank = r.layout->rank();
    for (std::vector<std::uint64_t> shape :
         {std::vector<std::uint64_t>(rank, 12), r.layout->padded_shape()}) {
      if (shape.size() != rank) continue;
      bool small = true;
      for (auto d : shape) small = small && d <= 4096;
      if (!small) continue;
      layout::BindResult b = layout::bind_layout(*r.layout, shape, m, 1);
      if (b)
        ++bound;
      else
        EXPECT_FALSE(b.validation.errors.empty()) << text;
    }
  }
  EXPECT_GT(parsed, 100);  // the mutations must reach the deeper checks, not only the lexer
  EXPECT_GT(bound, 10);
}

TEST(ParserMutation, MachineFilesLoadOrFailWithFileLineColumn) {
  const std::string seed = io::read_file(testing::source_path("configs/mini.yaml"));
  std::mt19937_64 gen(7);
  int loaded = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string text = mutate(seed, gen);
    try {
      machine::parse_machine_yaml(text, "m.yaml");
      ++loaded;
    } catch (const machine::MachineFileError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("m.yaml:", 0), 0u) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(loaded, 50);
}

TEST(ParserMutation, ProgramsParseOrFailWithFileAndLine) {
  const std::string seed =
      "tensor A shape=12,8 dtype=int8\nload tensor=A layout=\"((4_PE, 3:8), (8:1))\" lm=0 offset=0,0 "
      "shape=12,8 "
      "pad=3\nmac a=0 b=64 c=128 m=3 n=4 k=8 acc=true\nrequant src=128 dst=256 rows=3 cols=4 "
      "multiplier=1,2,3,4 "
      "shift=0,0,0,0\nreduce level=MAB src=0 dst=64 count=4\nstore tensor=A layout=\"((4_PE, 3:8), "
      "(8:1))\"\n";
  std::mt19937_64 gen(11);
  int parsed = 0;
  for (int i = 0; i < 6000; ++i) {
    const std::string text = mutate(seed, gen);
    try {
      const std::vector<std::string> levels = {"L2B", "L1B", "MAB", "PE"};
      program::Program p = program::parse_program(text, "p.txt", levels);
      ++parsed;
      EXPECT_EQ(program::parse_program(program::print_program(p, levels), "again", levels), p);
    } catch (const program::ProgramError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("p.txt:", 0), 0u) << e.what();
    }
  }
  EXPECT_GT(parsed, 100);
}

}  // namespace
}  // namespace treesim
