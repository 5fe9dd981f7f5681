#include "sim/numeric/exact_int8_matmul.h"

#include <vector>

#ifdef TREESIM_HAVE_DNNL
#include <dnnl.hpp>
#endif

namespace treesim::numeric {
namespace {

// C = A·B in int32 one A row at a time: each A code scales a B row (the loop compilers vectorize).
__attribute__((target_clones("avx2", "default"))) void loop_matmul(const std::uint8_t* a, bool a_signed,
                                                                   const std::int8_t* b, std::int32_t* c,
                                                                   std::size_t m, std::size_t n,
                                                                   std::size_t k, std::size_t lda,
                                                                   std::size_t ldb) {
  for (std::size_t i = 0; i < m; ++i) {
    std::int32_t* row = c + i * n;
    for (std::size_t j = 0; j < n; ++j) row[j] = 0;
    for (std::size_t kk = 0; kk < k; ++kk) {
      const std::uint8_t code = a[i * lda + kk];
      const std::int32_t x = a_signed ? static_cast<std::int8_t>(code) : code;
      const std::int8_t* brow = b + kk * ldb;
      for (std::size_t j = 0; j < n; ++j) row[j] += x * brow[j];
    }
  }
}

#ifdef TREESIM_HAVE_DNNL
bool onednn_is_exact() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  return isa == dnnl::cpu_isa::avx512_core_vnni || isa == dnnl::cpu_isa::avx512_core_bf16 ||
         isa == dnnl::cpu_isa::avx512_core_amx || isa == dnnl::cpu_isa::avx2_vnni;
}

void onednn_matmul(const std::uint8_t* a, bool a_signed, const std::int8_t* b, std::int32_t* c, std::size_t m,
                   std::size_t n, std::size_t k, std::size_t lda, std::size_t ldb) {
  using dt = dnnl::memory::data_type;
  using dims = dnnl::memory::dims;
  const auto d = [](std::size_t v) { return static_cast<dnnl::memory::dim>(v); };
  const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  const dnnl::memory::desc a_md(dims{d(m), d(k)}, a_signed ? dt::s8 : dt::u8, dims{d(lda), 1}),
      b_md(dims{d(k), d(n)}, dt::s8, dims{d(ldb), 1}), c_md(dims{d(m), d(n)}, dt::s32, dims{d(n), 1});
  const dnnl::matmul mm(dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), eng));
  dnnl::memory am(a_md, eng, const_cast<std::uint8_t*>(a)), bm(b_md, eng, const_cast<std::int8_t*>(b)),
      cm(c_md, eng, c);
  mm.execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  stream.wait();
}
#endif

}  // namespace

void exact_int8_matmul(const std::uint8_t* a, bool a_signed, const std::int8_t* b, std::int32_t* c,
                       std::size_t m, std::size_t n, std::size_t k, std::size_t lda, std::size_t ldb) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::size_t i = 0; i < m * n; ++i) c[i] = 0;
    return;
  }
#ifdef TREESIM_HAVE_DNNL
  static const bool exact = onednn_is_exact();
  if (exact) return onednn_matmul(a, a_signed, b, c, m, n, k, lda, ldb);
#endif
  loop_matmul(a, a_signed, b, c, m, n, k, lda, ldb);
}

}  // namespace treesim::numeric
