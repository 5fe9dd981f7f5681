// Host memory mapped in bulk. A page's first touch is a page fault, and on some virtual machines
// that costs 10 µs or more (measured on this project's machine: 11 µs per 4 KiB page touched, 0.7 µs
// per page mapped by one madvise call, one fault per 2 MiB transparent huge page), more than the
// simulator's own work on the page. Memory a run is about to fill is therefore mapped in one call,
// or in huge pages.
#pragma once

#include <cstddef>
#include <cstdint>

namespace treesim::host {

// Fresh zero pages the OS maps only when touched or populated (mmap), page-aligned (2 MiB-aligned
// from 2 MiB); throws std::bad_alloc when the host has none. Freed with free_pages.
std::uint8_t* allocate_pages(std::size_t bytes);
void free_pages(std::uint8_t* pages, std::size_t bytes);

// Maps the whole pages overlapping [p, p + bytes) for writing in one call (MADV_POPULATE_WRITE):
// their contents do not change. Does nothing on kernels without it (before Linux 5.14): the
// pages are then mapped on first touch, as before.
void populate_pages(void* p, std::size_t bytes);

// Asks the kernel to back the whole 2 MiB pages inside [p, p + bytes) with transparent huge pages
// where the host allows them (madvise mode): one page fault maps 2 MiB. Ignored where it does not.
void advise_huge_pages(void* p, std::size_t bytes);

// The process's heap (glibc's) reserved as one large region of address space, its first 128 MiB
// backed by 2 MiB transparent huge pages where the host allows them (the `madvise` mode of
// /sys/kernel/mm/transparent_hugepage/enabled): elaborating the board's 10,000 modules and a small
// or middling run (a GEMM, mdual's SpMV: under 150 MB) then take a page fault per 2 MiB instead of
// per 4 KiB. Past that the heap holds a large run's data, where fresh huge pages are a gamble: on
// this project's VM one costs 0.13 s/GiB when the host still backs it and 1.1-2.6 s/GiB when it has
// taken it back (likely free page reporting: a guest hands its free 2 MiB blocks back to the host,
// and huge pages come from those), against a steady 0.4-0.6 s/GiB for 4 KiB pages. A 10^7-nonzero
// SpMV spent 1.9-2.9 s of system time with the whole heap in huge pages, 0.6-0.8 s with the first
// 128 MiB. Memory is still used only as it is touched. Blocks up to 32 MiB come from this heap and
// are reused when freed. A process setting: a program calls it once at start (treesim does, from
// its .preinit_array), a library never does. Does nothing where the heap is not glibc's break (a
// sanitizer's allocator).
void reserve_huge_page_heap();

}  // namespace treesim::host
