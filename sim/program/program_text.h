// Programs as text: one instruction per line, `kind key=value ...`, `#` starts a comment.
//   tensor A shape=12,8 dtype=int8
//   load tensor=A layout="((4_PE, 3:8), (8:1))" lm=0
//   mac a=0 b=96 c=256 m=3 n=8 k=8
// print_program writes every field, so parse_program(print_program(p)) == p. Level names (in
// layouts and in collectives' `level=`) are the machine's, root first; `board` is the board.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "sim/program/instruction.h"

namespace treesim::program {

// A program text that cannot be used: what() is `FILE:LINE: message`.
class ProgramError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Program parse_program(const std::string& text, const std::string& file,
                      const std::vector<std::string>& level_names);
std::string print_program(const Program& program, const std::vector<std::string>& level_names);
std::string print_instr(const Instr& instr, const std::vector<std::string>& level_names);
// A list field as program text writes it: "1,2,3".
std::string print_list(const std::vector<std::uint64_t>& values);

}  // namespace treesim::program
