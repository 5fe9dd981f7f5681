// Pages mapped up front (host_pages.h) read as before: fresh pages are zero and page-aligned, and
// populating a range, or reserving DRAM storage, leaves every byte it holds as it was.
#include "models/host/host_pages.h"

#include <gtest/gtest.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "models/dram.h"
#include "sim/machine/machine_file.h"
#include "tests/configs.h"
#include "tests/test_support.h"

namespace treesim::host {
namespace {

using models::Dram;

TEST(HostPages, FreshPagesAreZeroAndPageAligned) {
  const std::size_t bytes = 5 * 4096 + 17;
  std::uint8_t* p = allocate_pages(bytes);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE)), 0u);
  EXPECT_EQ(std::vector<std::uint8_t>(p, p + bytes), std::vector<std::uint8_t>(bytes, 0));
  free_pages(p, bytes);
}

TEST(HostPages, LargeBlocksStartOnAHugePageBoundary) {
  const std::size_t bytes = (std::size_t{5} << 20) + 4096;
  std::uint8_t* p = allocate_pages(bytes);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % (std::uintptr_t{2} << 20), 0u);
  p[0] = 1, p[bytes - 1] = 2;  // both ends are mapped
  EXPECT_EQ(p[0] + p[bytes - 1], 3);
  free_pages(p, bytes);
}

TEST(HostPages, AdvisingHugePagesKeepsWhatThePagesHold) {
  const std::size_t bytes = std::size_t{6} << 20;
  std::uint8_t* p = allocate_pages(bytes);
  for (std::size_t i = 0; i < bytes; i += 4093) p[i] = static_cast<std::uint8_t>(i % 253 + 1);
  const std::vector<std::uint8_t> before(p, p + bytes);
  advise_huge_pages(p + 100, bytes - 200);
  for (std::size_t i = 1; i < bytes; i += 4093) p[i] = 9;  // touched after the advice
  for (std::size_t i = 1; i < bytes; i += 4093) EXPECT_EQ(p[i], 9);
  for (std::size_t i = 0; i < bytes; i += 4093) EXPECT_EQ(p[i], before[i]);
  free_pages(p, bytes);
}

TEST(HostPages, PopulatingAnUnalignedRangeKeepsWhatItHolds) {
  const std::size_t bytes = 9 * 4096;
  std::uint8_t* p = allocate_pages(bytes);
  for (std::size_t i = 0; i < bytes; i += 3) p[i] = static_cast<std::uint8_t>(i * 7 + 1);
  const std::vector<std::uint8_t> before(p, p + bytes);
  populate_pages(p + 1000, 5 * 4096 + 3);
  populate_pages(p, 0);
  EXPECT_EQ(std::vector<std::uint8_t>(p, p + bytes), before);
  free_pages(p, bytes);
}

// An initiator bound to the DRAM, as the board is.
class Initiator : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<Initiator> socket{"socket"};
  explicit Initiator(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {}
};

TEST(HostPages, TheReservedHeapServesAndReusesLargeBlocks) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "the sanitizer's allocator is not glibc's heap";
#endif
  reserve_huge_page_heap();
  // A block of 8 MiB (past glibc's default mapping threshold) comes from the heap's reserve: below
  // the break, not a mapping of its own; freed and asked for again, it is the same block.
  auto* a = static_cast<std::uint8_t*>(std::malloc(8 << 20));
  ASSERT_NE(a, nullptr);
  EXPECT_LT(reinterpret_cast<std::uintptr_t>(a), reinterpret_cast<std::uintptr_t>(::sbrk(0)));
  std::memset(a, 7, 8 << 20);
  std::free(a);
  auto* b = static_cast<std::uint8_t*>(std::malloc(8 << 20));
  EXPECT_EQ(a, b);
  std::free(b);
}

std::vector<std::uint8_t> debug(Initiator& board, bool write, std::uint64_t addr,
                                std::vector<std::uint8_t> bytes) {
  tlm::tlm_generic_payload t;
  t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  t.set_address(addr);
  t.set_data_ptr(bytes.data());
  t.set_data_length(static_cast<unsigned int>(bytes.size()));
  t.set_streaming_width(static_cast<unsigned int>(bytes.size()));
  EXPECT_EQ(board.socket->transport_dbg(t), bytes.size());
  return bytes;
}

TEST(HostPages, ReservingDramStorageKeepsWhatItHolds) {
  const machine::MachineConfig m = testing::config("mini");
  Dram dram("dram", m);
  Initiator board("board");
  board.socket.bind(dram.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // ends elaboration: the sockets are bound
  std::vector<std::uint8_t> written(3000);
  for (std::size_t i = 0; i < written.size(); ++i) written[i] = static_cast<std::uint8_t>(i % 251 + 1);
  debug(board, true, 100, written);
  dram.reserve(1 << 20);
  EXPECT_EQ(debug(board, false, 100, std::vector<std::uint8_t>(written.size())), written);
  EXPECT_EQ(debug(board, false, 5000, std::vector<std::uint8_t>(64)), std::vector<std::uint8_t>(64, 0));
}

}  // namespace
}  // namespace treesim::host
