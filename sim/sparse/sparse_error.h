// An error about sparse input (an encoding string, a matrix file, storage arrays): one line, and
// for an encoding string the text with a caret under the offending token, like a layout's.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

namespace treesim::sparse {

class SparseError : public std::runtime_error {
 public:
  // `message` is the one line; `source`/`column` (1-based, 0 = none)/`length` place the caret.
  explicit SparseError(const std::string& message, std::string source = "", std::size_t column = 0,
                       std::size_t length = 0)
      : std::runtime_error(message), source_(std::move(source)), column_(column), length_(length) {}
  std::size_t column() const { return column_; }
  // The source echoed, a caret line under the token, then the message.
  std::string render() const;

 private:
  std::string source_;
  std::size_t column_;
  std::size_t length_;
};

}  // namespace treesim::sparse
