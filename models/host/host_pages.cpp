#include "models/host/host_pages.h"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <new>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23  // Linux 5.14; glibc's headers may predate it
#endif

namespace treesim::host {
namespace {

std::uintptr_t page_size() {
  static const std::uintptr_t size = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

}  // namespace

std::uint8_t* allocate_pages(std::size_t bytes) {
  // Large blocks start on a 2 MiB boundary, where a huge page can back them from the first byte:
  // map 2 MiB more and unmap what lies before the boundary and after the block.
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const std::size_t size = bytes == 0 ? 1 : bytes, extra = size >= kHuge ? kHuge : 0;
  void* p = ::mmap(nullptr, size + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  if (extra == 0) return static_cast<std::uint8_t*>(p);
  const auto start = reinterpret_cast<std::uintptr_t>(p), aligned = (start + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t page = page_size(), end = (aligned + size + page - 1) & ~(page - 1);
  if (aligned > start) ::munmap(p, aligned - start);
  if (start + size + extra > end) ::munmap(reinterpret_cast<void*>(end), start + size + extra - end);
  return reinterpret_cast<std::uint8_t*>(aligned);
}

void free_pages(std::uint8_t* pages, std::size_t bytes) {
  if (pages) ::munmap(pages, bytes == 0 ? 1 : bytes);
}

void populate_pages(void* p, std::size_t bytes) {
  if (bytes == 0) return;
  const std::uintptr_t page = page_size();
  const auto first = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  const std::uintptr_t last = (reinterpret_cast<std::uintptr_t>(p) + bytes + page - 1) & ~(page - 1);
  // Failure (EINVAL on old kernels, ENOMEM) leaves the pages to be mapped on first touch.
  (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE);
}

void advise_huge_pages(void* p, std::size_t bytes) {
  const std::uintptr_t page = page_size();
  const auto first = (reinterpret_cast<std::uintptr_t>(p) + page - 1) & ~(page - 1);
  const std::uintptr_t last = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(page - 1);
  if (first < last) (void)::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

void reserve_huge_page_heap() {
  constexpr std::uintptr_t kReserve = std::uintptr_t{1} << 30;  // address space, not memory
  constexpr std::uintptr_t kHugeHead = std::uintptr_t{128} << 20;
  // Blocks up to 32 MiB (glibc's largest setting) from the heap; its top never handed back.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
  // One block larger than the heap's free top makes glibc grow the break by the pad.
  mallopt(M_TOP_PAD, static_cast<int>(kReserve));
  void* block = std::malloc(mallinfo2().keepcost + 4096);
  mallopt(M_TOP_PAD, 128 << 10);  // glibc's default
  if (!block) return;
  const auto start = reinterpret_cast<std::uintptr_t>(block);
  const auto end = reinterpret_cast<std::uintptr_t>(::sbrk(0));
  // Only a block just below the break is the grown heap; madvise is ignored where huge pages are off.
  // Only its first kHugeHead bytes: see host_pages.h.
  if (start < end && end - start <= 2 * kReserve)
    advise_huge_pages(block, std::min<std::uintptr_t>(end - start, kHugeHead));
  std::free(block);
}

}  // namespace treesim::host
