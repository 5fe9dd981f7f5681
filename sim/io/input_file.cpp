#include "sim/io/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace treesim::io {
namespace {

// "1 MiB (1048576 bytes)" for exact binary multiples, else the byte count.
std::string size_text(std::uint64_t bytes) {
  const std::string exact = std::to_string(bytes) + " bytes";
  if (bytes >= (1u << 30) && bytes % (1u << 30) == 0)
    return std::to_string(bytes >> 30) + " GiB (" + exact + ")";
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB (" + exact + ")";
  return exact;
}

const char* file_type(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a plain file";
}

// Closes the descriptor on every path out.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

InputFileError::InputFileError(std::string path, FileProblem problem, std::string reason)
    : std::runtime_error(path + ": " + reason),
      path_(std::move(path)),
      problem_(problem),
      reason_(std::move(reason)) {}

std::string read_input_file(const std::string& path, std::uint64_t max_bytes, const std::string& kind) {
  const auto fail = [&](FileProblem p, const std::string& why) -> InputFileError {
    return InputFileError(path, p, why);
  };
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below as not regular.
  Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) {
    const int err = errno;
    switch (err) {
      case ENOENT:
      case ENOTDIR:
        throw fail(FileProblem::kMissing, "cannot open the " + kind + " (does it exist?)");
      case EACCES:
      case EPERM:
        throw fail(FileProblem::kPermission, "cannot open the " + kind + " (permission denied)");
      case ELOOP:
        throw fail(FileProblem::kSymlinkLoop, "cannot open the " + kind + " (a loop of symbolic links)");
      case EISDIR:
        throw fail(FileProblem::kDirectory, "is a directory, expected a " + kind);
      default:
        throw fail(FileProblem::kOther, "cannot open the " + kind + " (" + std::strerror(err) + ")");
    }
  }
  struct stat st {};
  if (::fstat(f.fd, &st) != 0)
    throw fail(FileProblem::kOther, "cannot read the " + kind + " (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw fail(FileProblem::kDirectory, "is a directory, expected a " + kind);
  if (!S_ISREG(st.st_mode))
    throw fail(FileProblem::kNotRegular,
               std::string("not a regular file (") + file_type(st.st_mode) + "), expected a " + kind);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes)
    throw fail(FileProblem::kTooLarge, "the " + kind + " is " + std::to_string(size) +
                                           " bytes, larger than " + size_text(max_bytes) +
                                           ", the most that is read");
  // Read at most one byte past the cap, in case the file grows while it is read.
  std::string data;
  data.resize(static_cast<std::size_t>(size));
  std::size_t have = 0;
  for (;;) {
    if (have == data.size()) {
      if (data.size() > max_bytes) break;
      data.resize(data.size() + std::min<std::uint64_t>(std::uint64_t{1} << 16, max_bytes + 1 - data.size()));
    }
    const ssize_t n = ::read(f.fd, data.data() + have, data.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw fail(FileProblem::kOther, "cannot read the " + kind + " (" + std::strerror(errno) + ")");
    if (n == 0) break;
    have += static_cast<std::size_t>(n);
  }
  data.resize(have);
  if (have > max_bytes)
    throw fail(FileProblem::kTooLarge,
               "the " + kind + " is larger than " + size_text(max_bytes) + ", the most that is read");
  return data;
}

}  // namespace treesim::io
