// Bad input, table-driven: each case must end with exit status 2, exactly one line on stderr that
// starts with "treesim: " and contains the expected fragment (the file, field or option), nothing
// on stdout, and no file left in its folder but the inputs it was given (no output, no temporary).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "tests/test_support.h"
#include "tests/tools/bad_input_cases.h"

namespace treesim::testing {
namespace {

std::string substitute(std::string text, const std::string& dir) {
  for (std::size_t at = text.find("@D"); at != std::string::npos; at = text.find("@D", at + dir.size()))
    text.replace(at, 2, dir);
  for (std::size_t at = text.find("@M"); at != std::string::npos; at = text.find("@M", at))
    text.replace(at, 2, source_path("configs/mini.yaml"));
  return text;
}

// Writes one input (its folders made first: "set/input_0.pb"); a few markers make special files
// instead: <dir> and <dir-ro> (a folder, read-only), <symlink-loop>, <link:TARGET>, <sparse:N>,
// <mode000>.
void make_input(const std::string& path, const std::string& content) {
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1))
    ::mkdir(path.substr(0, slash).c_str(), 0755);  // the existing ones stay as they are
  if (content == "<dir>" || content == "<dir-ro>") {
    ASSERT_EQ(::mkdir(path.c_str(), content == "<dir>" ? 0755 : 0555), 0) << path;
  } else if (content == "<symlink-loop>") {
    ASSERT_EQ(::symlink(path.c_str(), path.c_str()), 0);
  } else if (content.rfind("<link:", 0) == 0) {
    ASSERT_EQ(::symlink(content.substr(6, content.size() - 7).c_str(), path.c_str()), 0);
  } else if (content.rfind("<sparse:", 0) == 0) {
    // A file of that size without writing it: the size cap is checked before anything is read.
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, std::stoll(content.substr(8))), 0);
    ::close(fd);
  } else if (content == "<mode000>") {
    ASSERT_EQ(::close(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0000)), 0);
  } else {
    FILE* f = std::fopen(path.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(content.data(), 1, content.size(), f);
    std::fclose(f);
  }
}

std::set<std::string> entries(const std::string& dir) {
  std::set<std::string> names;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return names;
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.insert(n);
  }
  ::closedir(d);
  return names;
}

std::vector<BadInput> all_cases() {
  std::vector<BadInput> all;
  for (auto* group : {&machine_cases, &program_cases, &command_cases, &sparse_cases, &onnx_cases}) {
    auto cases = (*group)();
    all.insert(all.end(), cases.begin(), cases.end());
  }
  return all;
}

class BadInputTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadInputTest, OneLineExitTwoNothingLeftBehind) {
  const BadInput& c = GetParam();
  if (c.needs_non_root && ::geteuid() == 0) GTEST_SKIP() << "root can read a file of mode 000";
  const std::string dir = temp_path("bad-" + c.name);
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0) << dir;
  std::set<std::string> inputs;
  for (const auto& [name, content] : c.files) {
    make_input(dir + "/" + name, content);
    inputs.insert(name.substr(0, name.find('/')));
  }
  std::vector<std::string> args;
  for (const auto& a : c.args) args.push_back(substitute(a, dir));

  const CliResult r = run_treesim(args);

  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("treesim: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.back(), '\n');
  EXPECT_NE(r.err.find(substitute(c.fragment, dir)), std::string::npos)
      << "expected: " << substitute(c.fragment, dir) << "\n got: " << r.err;
  EXPECT_LE(r.err.size(), 600u) << "echoed input must be cut";
  EXPECT_EQ(entries(dir), inputs) << "an output or a temporary was left behind";
  // A refusal comes before anything is allocated by what the input declares.
  if (!sanitizer_build()) {
    EXPECT_LT(r.peak_rss_bytes, 200u << 20) << "peak memory of a refused input";
  }
}

std::string case_name(const ::testing::TestParamInfo<BadInput>& info) {
  return std::to_string(info.index / 100) + std::to_string(info.index / 10 % 10) +
         std::to_string(info.index % 10) + "_" + info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Cases, BadInputTest, ::testing::ValuesIn(all_cases()), case_name);

TEST(BadInputTable, HasAtLeastAHundredCasesWithDistinctNames) {
  const auto cases = all_cases();
  std::set<std::string> names;
  for (const auto& c : cases) names.insert(c.name);
  EXPECT_GE(cases.size(), 100u);
  EXPECT_EQ(names.size(), cases.size());
}

}  // namespace
}  // namespace treesim::testing
