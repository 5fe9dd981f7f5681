// ONNX backend-test folders, as bytes: every input either reads into a model and its sets or is
// refused as an error value naming the file; a crash, an exception, or memory sized by a
// declaration is a bug. The input is a folder packed as records (backend_folder_of below); the
// seeds pack Debian's libonnx-testdata 1.12.0 test_qlinearmatmul_2D (tests/fuzz/pack_backend_test.py).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "kernels/graph/backend_test.h"

namespace {

// Bytes 0-3: model.onnx's length n (little-endian), then its n bytes; then records of one byte
// `set` (its low 2 bits: test_data_set_0..3), one byte `file` (0-15: input_N.pb, 16-31:
// output_{N-16}.pb, else a name the reader skips), 4 bytes of length and the file's bytes.
treesim::graph::BackendFolder backend_folder_of(const std::uint8_t* data, std::size_t size) {
  treesim::graph::BackendFolder f;
  f.dir = "fuzz";
  auto u32 = [&](std::size_t at) {
    return static_cast<std::size_t>(data[at]) | static_cast<std::size_t>(data[at + 1]) << 8 |
           static_cast<std::size_t>(data[at + 2]) << 16 | static_cast<std::size_t>(data[at + 3]) << 24;
  };
  if (size < 4) return f;
  std::size_t at = 4, n = std::min(u32(0), size - 4);
  f.model.assign(reinterpret_cast<const char*>(data + at), n);
  at += n;
  std::map<std::string, std::map<std::string, std::string>> sets;
  while (at + 6 <= size) {
    const std::string set = "test_data_set_" + std::to_string(data[at] & 3);
    const unsigned file = data[at + 1];
    const std::size_t len = std::min(u32(at + 2), size - at - 6);
    const std::string name = file < 16   ? "input_" + std::to_string(file) + ".pb"
                             : file < 32 ? "output_" + std::to_string(file - 16) + ".pb"
                                         : "other_" + std::to_string(file) + ".pb";
    sets[set][name].assign(reinterpret_cast<const char*>(data + at + 6), len);
    at += 6 + len;
  }
  for (auto& [name, files] : sets) f.sets.emplace_back(name, std::move(files));
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace graph = treesim::graph;
  const graph::BackendFolder folder = backend_folder_of(data, size);
  auto fused = graph::backend_model(folder);
  if (!fused) {
    if (fused.errors().empty()) __builtin_trap();
    return 0;
  }
  auto sets = graph::backend_sets(folder, fused->model);
  if (!sets && sets.errors().empty()) __builtin_trap();
  if (sets)
    for (const graph::BackendSet& s : sets.value())
      for (std::size_t i = 0; i < s.inputs.size(); ++i)  // every input is what the graph declares
        if (!graph::declaration_mismatch(fused->model.inputs[i], s.inputs[i]).empty()) __builtin_trap();
  return 0;
}
