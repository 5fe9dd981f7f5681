// A command's output files, all or none: every output is written to a temporary in its target
// folder and renamed into place only when the whole command has succeeded. A command that fails
// after writing one output (say --report, then --out) therefore leaves none of them behind.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace treesim::tools {

class OutputSet {
 public:
  OutputSet() = default;
  OutputSet(const OutputSet&) = delete;
  OutputSet& operator=(const OutputSet&) = delete;
  ~OutputSet();  // removes every temporary not committed

  // Reserves `path` as an output named by `option` (e.g. "--report") and returns the temporary to
  // write instead. The temporary is created at once, so a missing or read-only folder is a
  // CliError naming the path before any work is done. Staging the same path for the same option
  // again returns the same temporary.
  std::string stage(const std::string& path, const std::string& option);
  // Makes the folder `dir` (with its missing parents) for outputs named by `option` (e.g. "--out").
  // A path through a file, or one that cannot be made, is a CliError naming the option and the
  // path. The folders made here are removed again (while empty) unless commit() runs, so a command
  // that fails leaves no folder behind either.
  void stage_folder(const std::string& dir, const std::string& option);
  // stage() and write `content` to the temporary.
  void write(const std::string& path, std::string_view content, const std::string& option);
  // Renames every temporary onto its target.
  void commit();

 private:
  struct Entry {
    std::string target, temporary, option;
  };
  std::vector<Entry> entries_;
  std::vector<std::string> made_folders_;  // in the order made: parents first
  bool committed_ = false;
};

}  // namespace treesim::tools
