#include "sim/numeric/exact_int8_matmul.h"

#ifdef TREESIM_DNNL_SONAME
#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.h>
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

#ifdef TREESIM_DNNL_SONAME
// oneDNN's C API, opened on the first product rather than linked: loading libdnnl (and the OpenCL
// and OpenMP runtimes it pulls in) costs every treesim process about 6 ms and 200 page faults,
// and only --verify and the references use it. The pointer types come from the header, so a
// mismatch with the installed API fails to compile.
struct OneDnn {
  // clang-format off
#define TREESIM_DNNL_FUNCTIONS(X)                                                                 \
  X(dnnl_get_effective_cpu_isa)                                                                   \
  X(dnnl_engine_create) X(dnnl_stream_create) X(dnnl_stream_wait) X(dnnl_stream_destroy)          \
  X(dnnl_memory_desc_init_by_strides) X(dnnl_matmul_desc_init) X(dnnl_primitive_desc_create)      \
  X(dnnl_primitive_desc_destroy) X(dnnl_primitive_create) X(dnnl_primitive_destroy)               \
  X(dnnl_primitive_execute) X(dnnl_memory_create) X(dnnl_memory_destroy)
  // clang-format on
#define TREESIM_DNNL_POINTER(name) decltype(&::name) name = nullptr;
  TREESIM_DNNL_FUNCTIONS(TREESIM_DNNL_POINTER)
#undef TREESIM_DNNL_POINTER
  dnnl_engine_t engine = nullptr;  // kept for the process, as oneDNN's own engine cache would be
  bool loaded = false, has_vnni = false, usable = false;

  OneDnn() {
    void* lib = dlopen(TREESIM_DNNL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) return;  // not installed at run time: the loop computes the same product
    bool found = true;
#define TREESIM_DNNL_LOOKUP(name)                                \
  name = reinterpret_cast<decltype(&::name)>(dlsym(lib, #name)); \
  found = found && name != nullptr;
    TREESIM_DNNL_FUNCTIONS(TREESIM_DNNL_LOOKUP)
#undef TREESIM_DNNL_LOOKUP
    loaded = found;
    has_vnni = found && exact();
    usable = has_vnni && dnnl_engine_create(&engine, dnnl_cpu, 0) == dnnl_success;
  }

  // oneDNN's ISA values are bit sets, each a superset of the ISAs it extends: any ISA with one of
  // the VNNI sets' bits has VNNI (later ones such as AMX included), whose vpdpbusd adds products
  // without the int16 saturation of vpmaddubsw.
  bool exact() const {
    const auto isa = static_cast<unsigned>(dnnl_get_effective_cpu_isa());
    const auto has = [isa](dnnl_cpu_isa_t set) {
      return (isa & static_cast<unsigned>(set)) == static_cast<unsigned>(set);
    };
    return has(dnnl_cpu_isa_avx512_core_vnni) || has(dnnl_cpu_isa_avx2_vnni);
  }

  // False when any step fails, so that the caller falls back to the loop.
  bool matmul(const std::uint8_t* a, bool a_signed, const std::int8_t* b, std::int32_t* c, std::size_t m,
              std::size_t n, std::size_t k, std::size_t lda, std::size_t ldb) const {
    const auto d = [](std::size_t v) { return static_cast<dnnl_dim_t>(v); };
    const dnnl_dims_t a_dims{d(m), d(k)}, a_strides{d(lda), 1}, b_dims{d(k), d(n)}, b_strides{d(ldb), 1},
        c_dims{d(m), d(n)}, c_strides{d(n), 1};
    dnnl_memory_desc_t a_md, b_md, c_md;
    dnnl_matmul_desc_t desc;
    if (dnnl_memory_desc_init_by_strides(&a_md, 2, a_dims, a_signed ? dnnl_s8 : dnnl_u8, a_strides) ||
        dnnl_memory_desc_init_by_strides(&b_md, 2, b_dims, dnnl_s8, b_strides) ||
        dnnl_memory_desc_init_by_strides(&c_md, 2, c_dims, dnnl_s32, c_strides) ||
        dnnl_matmul_desc_init(&desc, &a_md, &b_md, nullptr, &c_md))
      return false;
    dnnl_primitive_desc_t pd = nullptr;
    dnnl_primitive_t prim = nullptr;
    dnnl_stream_t stream = nullptr;
    dnnl_memory_t mem[3] = {nullptr, nullptr, nullptr};
    bool ok = dnnl_primitive_desc_create(&pd, &desc, nullptr, engine, nullptr) == dnnl_success &&
              dnnl_primitive_create(&prim, pd) == dnnl_success &&
              dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) == dnnl_success &&
              dnnl_memory_create(&mem[0], &a_md, engine, const_cast<std::uint8_t*>(a)) == dnnl_success &&
              dnnl_memory_create(&mem[1], &b_md, engine, const_cast<std::int8_t*>(b)) == dnnl_success &&
              dnnl_memory_create(&mem[2], &c_md, engine, c) == dnnl_success;
    if (ok) {
      const dnnl_exec_arg_t args[] = {
          {DNNL_ARG_SRC, mem[0]}, {DNNL_ARG_WEIGHTS, mem[1]}, {DNNL_ARG_DST, mem[2]}};
      ok = dnnl_primitive_execute(prim, stream, 3, args) == dnnl_success &&
           dnnl_stream_wait(stream) == dnnl_success;
    }
    for (dnnl_memory_t mm : mem)
      if (mm != nullptr) dnnl_memory_destroy(mm);
    if (stream != nullptr) dnnl_stream_destroy(stream);
    if (prim != nullptr) dnnl_primitive_destroy(prim);
    if (pd != nullptr) dnnl_primitive_desc_destroy(pd);
    return ok;
  }
};
#undef TREESIM_DNNL_FUNCTIONS

const OneDnn& onednn() {
  static const OneDnn instance;  // opened once per process, and only by a process that needs it
  return instance;
}
#endif

}  // namespace

ExactInt8MatmulPath exact_int8_matmul_path() {
#ifdef TREESIM_DNNL_SONAME
  if (onednn().usable) return ExactInt8MatmulPath::onednn;
  // Loaded on a CPU with VNNI but no engine: oneDNN is as good as absent.
  return onednn().loaded && !onednn().has_vnni ? ExactInt8MatmulPath::loop_without_vnni
                                               : ExactInt8MatmulPath::loop_without_onednn;
#else
  return ExactInt8MatmulPath::loop_without_onednn;
#endif
}

bool exact_int8_matmul_built_with_onednn() {
#ifdef TREESIM_DNNL_SONAME
  return true;
#else
  return false;
#endif
}

void exact_int8_matmul(const std::uint8_t* a, bool a_signed, const std::int8_t* b, std::int32_t* c,
                       std::size_t m, std::size_t n, std::size_t k, std::size_t lda, std::size_t ldb) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    for (std::size_t i = 0; i < m * n; ++i) c[i] = 0;
    return;
  }
#ifdef TREESIM_DNNL_SONAME
  if (onednn().usable && onednn().matmul(a, a_signed, b, c, m, n, k, lda, ldb)) return;
#endif
  loop_matmul(a, a_signed, b, c, m, n, k, lda, ldb);
}

}  // namespace treesim::numeric
