#include "tests/test_support.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

CliResult run_treesim(const std::vector<std::string>& args) {
  static int counter = 0;
  std::string out_path = temp_path("cli-out-" + std::to_string(counter));
  std::string err_path = temp_path("cli-err-" + std::to_string(counter++));
  pid_t pid = ::fork();
  if (pid == 0) {
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
  int status = 0;
  ::waitpid(pid, &status, 0);
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out_path);
  r.err = slurp(err_path);
  return r;
}

}  // namespace treesim::testing
