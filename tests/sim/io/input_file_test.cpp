#include "sim/io/input_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_support.h"

namespace treesim::io {
namespace {

using ::testing::HasSubstr;

FileProblem problem_of(const std::string& path, std::uint64_t cap = 1024) {
  try {
    read_input_file(path, cap, "test file");
  } catch (const InputFileError& e) {
    return e.problem();
  }
  ADD_FAILURE() << path << " was read";
  return FileProblem::kOther;
}

TEST(InputFile, ReadsARegularFileWhole) {
  EXPECT_EQ(read_input_file(testing::write_temp_file("ok.txt", "abc\n"), 4, "test file"), "abc\n");
}

TEST(InputFile, EachReasonHasItsOwnProblem) {
  EXPECT_EQ(problem_of("/nonexistent/x"), FileProblem::kMissing);
  EXPECT_EQ(problem_of("/tmp"), FileProblem::kDirectory);
  EXPECT_EQ(problem_of("/dev/zero"), FileProblem::kNotRegular);
  const std::string loop = testing::temp_path("loop");
  ASSERT_EQ(::symlink(loop.c_str(), loop.c_str()), 0);
  EXPECT_EQ(problem_of(loop), FileProblem::kSymlinkLoop);
  EXPECT_EQ(problem_of(testing::write_temp_file("big.txt", std::string(1025, 'x'))), FileProblem::kTooLarge);
}

TEST(InputFile, TheCapIsInTheMessage) {
  const std::string path = testing::write_temp_file("cap.txt", std::string(3 << 20, 'x'));
  try {
    read_input_file(path, 1 << 20, "machine file");
    FAIL();
  } catch (const InputFileError& e) {
    EXPECT_EQ(e.reason(),
              "the machine file is 3145728 bytes, larger than 1 MiB (1048576 bytes), the most that is read");
  }
}

TEST(InputFile, PermissionDeniedIsNamed) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files of mode 000";
  const std::string path = testing::write_temp_file("secret.txt", "x");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  EXPECT_EQ(problem_of(path), FileProblem::kPermission);
}

}  // namespace
}  // namespace treesim::io
