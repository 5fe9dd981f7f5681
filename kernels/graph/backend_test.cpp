#include "kernels/graph/backend_test.h"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "kernels/graph/onnx_file.h"
#include "sim/core/echo.h"
#include "sim/io/input_file.h"

namespace treesim::graph {
namespace {

namespace fs = std::filesystem;
using core::Error;

std::string file_of(const BackendFolder& f, const std::string& set, const std::string& name) {
  return core::echo((fs::path(f.dir) / set / name).string());
}

// N of "STEM_N.pb" (decimal, no leading zeros, at most 9 digits), or -1.
long long number_of(const std::string& file, const std::string& stem) {
  const std::string prefix = stem + "_";
  if (file.rfind(prefix, 0) != 0 || file.size() <= prefix.size() + 3 || file.substr(file.size() - 3) != ".pb")
    return -1;
  const std::string digits = file.substr(prefix.size(), file.size() - prefix.size() - 3);
  if (digits.find_first_not_of("0123456789") != std::string::npos ||
      (digits.size() > 1 && digits[0] == '0') || digits.size() > 9)
    return -1;
  return std::stoll(digits);
}

// A set's STEM_0.pb ... STEM_{count-1}.pb, one per graph input (or output) `values`, parsed.
kernels::Result<std::vector<Tensor>> numbered(const BackendFolder& f, const std::string& set,
                                              const std::map<std::string, std::string>& files,
                                              const std::string& stem, const std::vector<ValueInfo>& values) {
  std::map<long long, const std::string*> found;
  for (const auto& [name, bytes] : files)
    if (long long n = number_of(name, stem); n >= 0) found[n] = &name;
  std::vector<Tensor> out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    auto it = found.find(static_cast<long long>(i));
    const std::string name = fmt::format("{}_{}.pb", stem, i);
    if (it == found.end())
      return Error{file_of(f, set, name),
                   fmt::format("missing (the graph's {} {} of {}: {} {})", stem, i, values.size(),
                               core::echo(values[i].name), declared_text(values[i]))};
    kernels::Result<Tensor> t = parse_onnx_tensor(files.at(*it->second), file_of(f, set, name));
    if (!t) return t.errors();
    if (stem == "input")
      if (std::string why = declaration_mismatch(values[i], t.value()); !why.empty())
        return Error{file_of(f, set, name), why};
    out.push_back(std::move(t.value()));
  }
  if (!found.empty() && static_cast<std::size_t>(found.rbegin()->first) >= values.size())
    return Error{file_of(f, set, *found.rbegin()->second),
                 fmt::format("the graph has {} {}s ({}_0.pb to {}_{}.pb)", values.size(), stem, stem, stem,
                             values.empty() ? 0 : values.size() - 1)};
  return out;
}

}  // namespace

kernels::Result<BackendFolder> load_backend_folder(const std::string& dir) {
  const fs::path root(dir);
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    return Error{core::echo(dir), "not a folder (expected an ONNX backend test case)"};
  BackendFolder f;
  f.dir = dir;
  try {
    f.model = io::read_input_file((root / "model.onnx").string(), kMaxModelBytes, "ONNX model");
  } catch (const io::InputFileError& e) {
    return Error{core::echo((root / "model.onnx").string()), e.reason()};
  }
  std::vector<fs::path> sets;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_directory(ec) && it->path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(it->path());
  if (ec) return Error{core::echo(dir), fmt::format("cannot read the folder ({})", ec.message())};
  if (sets.empty()) return Error{core::echo(dir), "no test_data_set_* folder"};
  std::sort(sets.begin(), sets.end());
  for (const fs::path& set : sets) {
    std::map<std::string, std::string> files;
    for (fs::directory_iterator it(set, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (number_of(name, "input") < 0 && number_of(name, "output") < 0) continue;
      try {
        files[name] = io::read_input_file(it->path().string(), kMaxTensorBytes + (1 << 20), "ONNX tensor");
      } catch (const io::InputFileError& e) {
        return Error{core::echo(it->path().string()), e.reason()};
      }
    }
    if (ec) return Error{core::echo(set.string()), fmt::format("cannot read the folder ({})", ec.message())};
    f.sets.emplace_back(set.filename().string(), std::move(files));
  }
  return f;
}

kernels::Result<Fusion> backend_model(const BackendFolder& folder) {
  kernels::Result<Model> m = parse_onnx_model(folder.model, (fs::path(folder.dir) / "model.onnx").string());
  if (!m) return m.errors();
  return fuse_qdq(m.value());
}

kernels::Result<std::vector<BackendSet>> backend_sets(const BackendFolder& folder, const Model& model) {
  std::vector<BackendSet> out;
  for (const auto& [name, files] : folder.sets) {
    BackendSet s;
    s.name = name;
    kernels::Result<std::vector<Tensor>> in = numbered(folder, name, files, "input", model.inputs);
    if (!in) return in.errors();
    kernels::Result<std::vector<Tensor>> expected = numbered(folder, name, files, "output", model.outputs);
    if (!expected) return expected.errors();
    s.inputs = std::move(in.value());
    s.outputs = std::move(expected.value());
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace treesim::graph
