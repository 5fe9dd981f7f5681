// A value the program being gathered makes, as it lies in DRAM (or in the LMs), and its ONNX value
// once the program has run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels/graph/tensor.h"

namespace treesim::graph {

// How a value the program being gathered makes lies in DRAM.
enum class Form {
  kPlain,     // row-major, as ONNX shapes it
  kNhwc,      // a 4-D NCHW value, its bytes in NHWC order (as conv2d and the pools leave it)
  kFlatNhwc,  // [N, C·H·W] flattened from the NCHW value `nchw`, its bytes in NHWC order
};

struct Made {
  std::string tensor;  // the program's tensor
  Form form = Form::kPlain;
  bool in_lm = false;               // left in the LMs for the next unit's reads, never stored to DRAM
  Tensor like;                      // type and ONNX shape, no bytes
  std::vector<std::uint64_t> nchw;  // kNhwc, kFlatNhwc
};

// NHWC bytes where C or H·W is 1 are the NCHW bytes too: such a value is plain.
Made normal(Made m);

// `m` reshaped as `shaped` (its type and shape; no bytes): the same bytes read as a plain value, an
// NHWC value of that NCHW shape, or its [N, C·H·W] flattening; none for another reshape (the host
// makes it from the value's bytes).
std::optional<Made> reshaped(const Made& m, const Tensor& shaped);

// The ONNX value of `m` from the bytes the program left (NHWC bytes reordered to NCHW).
Tensor value_of(const Made& m, const std::vector<std::uint8_t>& bytes);

}  // namespace treesim::graph
