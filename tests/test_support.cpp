#include "tests/test_support.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace treesim::testing {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string& temp_dir() {
  static const std::string dir = [] {
    std::string tmpl = "/tmp/treesim-test-XXXXXX";
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a temporary directory");
    return tmpl;
  }();
  return dir;
}

}  // namespace

std::string source_path(const std::string& relative) {
  return std::string(TREESIM_SOURCE_DIR) + "/" + relative;
}
std::string data_path(const std::string& relative) { return source_path("tests/data/" + relative); }
std::string temp_path(const std::string& name) { return temp_dir() + "/" + name; }

std::string read_text(const std::string& path) { return slurp(path); }

std::string write_temp_file(const std::string& name, const std::string& text) {
  std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

namespace {

// Forks the treesim binary with stdout/stderr to files; memory_bytes > 0 caps its address space.
pid_t spawn(const std::vector<std::string>& args, const std::string& out_path, const std::string& err_path,
            std::uint64_t memory_bytes) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (memory_bytes > 0) {
      struct rlimit limit {};
      limit.rlim_cur = limit.rlim_max = memory_bytes;
      ::setrlimit(RLIMIT_AS, &limit);
    }
    int out = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = ::open("/dev/null", O_RDONLY);
    ::dup2(out, 1);
    ::dup2(err, 2);
    ::dup2(in, 0);
    std::vector<char*> argv;
    std::string binary = TREESIM_BINARY;
    argv.push_back(binary.data());
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

int exit_code_of(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

}  // namespace

bool sanitizer_build() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

LimitedResult run_treesim_limited(const std::vector<std::string>& args, std::uint64_t memory_bytes,
                                  int timeout_seconds) {
  static int counter = 0;
  std::string out_path = temp_path("limited-out-" + std::to_string(counter));
  std::string err_path = temp_path("limited-err-" + std::to_string(counter++));
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = spawn(args, out_path, err_path, sanitizer_build() ? 0 : memory_bytes);
  LimitedResult r;
  int status = 0;
  struct rusage usage {};
  for (;;) {
    if (::wait4(pid, &status, WNOHANG, &usage) == pid) break;
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(timeout_seconds)) {
      ::kill(pid, SIGKILL);
      ::wait4(pid, &status, 0, &usage);
      r.timed_out = true;
      break;
    }
    ::usleep(2000);
  }
  r.peak_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.exit_code = exit_code_of(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

std::string run_kernel_report(const std::string& kernel, const std::string& machine,
                              const std::vector<std::string>& args, bool timing_only) {
  static int n = 0;
  const std::string report = temp_path(kernel + "-report-" + std::to_string(n++) + ".json");
  std::vector<std::string> all{
      "run", kernel, "--machine", source_path("configs/" + machine + ".yaml"), "--quiet", "--report", report};
  all.insert(all.end(), args.begin(), args.end());
  all.push_back(timing_only ? "--timing-only" : "--verify");
  const CliResult r = run_treesim(all);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.exit_code == 0 ? read_text(report) : "";
}

CliResult run_treesim(const std::vector<std::string>& args) {
  static int counter = 0;
  std::string out_path = temp_path("cli-out-" + std::to_string(counter));
  std::string err_path = temp_path("cli-err-" + std::to_string(counter++));
  pid_t pid = spawn(args, out_path, err_path, 0);
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  CliResult r;
  r.exit_code = exit_code_of(status);
  r.peak_rss_bytes = static_cast<std::uint64_t>(usage.ru_maxrss) * 1024;
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

}  // namespace treesim::testing
