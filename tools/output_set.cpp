#include "tools/output_set.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "sim/core/echo.h"
#include "tools/cli.h"

namespace treesim::tools {
namespace {

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string reason(int err) {
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return "its folder does not exist";
    case EACCES:
    case EPERM:
    case EROFS:
      return "its folder is not writable (permission denied)";
    case EISDIR:
      return "it is a directory";
    default:
      return std::strerror(err);
  }
}

}  // namespace

OutputSet::~OutputSet() {
  for (const Entry& e : entries_)
    if (!e.temporary.empty()) std::remove(e.temporary.c_str());
  if (committed_) return;
  for (auto it = made_folders_.rbegin(); it != made_folders_.rend(); ++it)
    ::rmdir(it->c_str());  // only if empty
}

void OutputSet::stage_folder(const std::string& dir, const std::string& option) {
  const std::string shown = core::echo(dir);
  if (dir.empty()) throw CliError(fmt::format("{}: expected a folder, got ''", option));
  // The missing folders, from the first one below an existing ancestor down to `dir`.
  std::vector<std::string> missing;
  std::string at = dir;
  while (!at.empty() && at != "/" && at != ".") {
    struct stat st {};
    if (::stat(at.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        throw CliError(
            fmt::format("{}: expected a folder, got '{}' ('{}' is a file)", option, shown, core::echo(at)));
      break;
    }
    if (errno != ENOENT && errno != ENOTDIR)  // ENOTDIR: a file above it, found further up
      throw CliError(fmt::format("{}: cannot make the folder '{}': {}", option, shown, reason(errno)));
    missing.push_back(at);
    const auto slash = at.find_last_not_of('/') == std::string::npos
                           ? std::string::npos
                           : at.rfind('/', at.find_last_not_of('/'));
    at = slash == std::string::npos ? "" : (slash == 0 ? "/" : at.substr(0, slash));
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST)
      throw CliError(fmt::format("{}: cannot make the folder '{}': {}", option, shown, reason(errno)));
    made_folders_.push_back(*it);
  }
}

std::string OutputSet::stage(const std::string& path, const std::string& option) {
  const std::string shown = core::echo(path);
  if (path.empty() || path.back() == '/')
    throw CliError(fmt::format("{}: expected an output file, got '{}'", option, shown));
  for (const Entry& e : entries_) {
    if (e.target != path) continue;
    if (e.option == option) return e.temporary;  // staged early, asked for again when written
    throw CliError(fmt::format("{}: expected a file that no other option writes, got '{}' (also {})", option,
                               shown, e.option));
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw CliError(fmt::format("{}: cannot write '{}': it is a directory", option, shown));
  const auto slash = path.rfind('/');
  const std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string folder = folder_of(path);
  for (int attempt = 0;; ++attempt) {
    const std::string tmp = fmt::format("{}/.{}.treesim-{}-{}-{}", folder, base.substr(0, 64), ::getpid(),
                                        entries_.size(), attempt);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      entries_.push_back({path, tmp, option});
      return tmp;
    }
    if (errno == EEXIST && attempt < 100) continue;
    throw CliError(fmt::format("{}: cannot write '{}': {}", option, shown, reason(errno)));
  }
}

void OutputSet::write(const std::string& path, std::string_view content, const std::string& option) {
  const std::string tmp = stage(path, option);
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  const bool ok = f && std::fwrite(content.data(), 1, content.size(), f) == content.size();
  const int err = errno;
  if (f && std::fclose(f) != 0 && ok)
    throw CliError(fmt::format("{}: cannot write '{}': {}", option, core::echo(path), std::strerror(errno)));
  if (!ok)
    throw CliError(fmt::format("{}: cannot write '{}': {}", option, core::echo(path), std::strerror(err)));
}

void OutputSet::commit() {
  for (Entry& e : entries_) {
    if (std::rename(e.temporary.c_str(), e.target.c_str()) != 0) {
      const int err = errno;
      // The temporaries still pending are removed by the destructor; the ones renamed stay.
      throw CliError(fmt::format("{}: cannot write '{}': {}", e.option, core::echo(e.target), reason(err)));
    }
    e.temporary.clear();
  }
  committed_ = true;
}

}  // namespace treesim::tools
