// Reading a user's input file whole, safely: only a regular file, only up to a documented size cap
// per format (checked before a byte is read), and a distinct message for each reason it cannot be
// read (missing, permission denied, symlink loop, a directory, a device or pipe, too large).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace treesim::io {

// The cap of each input format (README, "Limits").
inline constexpr std::uint64_t kMaxMachineFileBytes = std::uint64_t{1} << 20;   // 1 MiB
inline constexpr std::uint64_t kMaxQuantFileBytes = std::uint64_t{1} << 20;     // 1 MiB
inline constexpr std::uint64_t kMaxProgramFileBytes = std::uint64_t{16} << 20;  // 16 MiB
inline constexpr std::uint64_t kMaxDptFileBytes = std::uint64_t{256} << 20;     // 256 MiB
inline constexpr std::uint64_t kMaxNpyFileBytes = std::uint64_t{1} << 30;       // 1 GiB
inline constexpr std::uint64_t kMaxTraceFileBytes = std::uint64_t{1} << 30;     // 1 GiB

enum class FileProblem { kMissing, kPermission, kSymlinkLoop, kDirectory, kNotRegular, kTooLarge, kOther };

// what() is "PATH: REASON"; reason() alone is e.g. "cannot open the machine file (permission denied)".
class InputFileError : public std::runtime_error {
 public:
  InputFileError(std::string path, FileProblem problem, std::string reason);
  const std::string& path() const { return path_; }
  FileProblem problem() const { return problem_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string path_;
  FileProblem problem_;
  std::string reason_;
};

// The whole file. `kind` names the format in messages ("machine file", "program", ".npy file").
std::string read_input_file(const std::string& path, std::uint64_t max_bytes, const std::string& kind);

}  // namespace treesim::io
