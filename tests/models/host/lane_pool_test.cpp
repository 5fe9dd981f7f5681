// The lane pool splits a step's lanes into pieces its threads take in turn: every lane once, a
// worker's pieces in increasing order, few enough pieces for the grain, and the lowest piece's
// error whichever thread met it.
#include "models/host/lane_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace treesim::host {
namespace {

struct Piece {
  std::uint64_t first, last;
  unsigned worker;
};

// The pieces of one run, as the body saw them.
std::vector<Piece> pieces_of(LanePool& pool, std::uint64_t count, std::uint64_t grain) {
  std::mutex mutex;
  std::vector<Piece> seen;
  const std::exception_ptr e =
      pool.run(count, grain, [&](std::uint64_t first, std::uint64_t last, unsigned w) {
        std::lock_guard<std::mutex> lock(mutex);
        seen.push_back({first, last, w});
      });
  EXPECT_FALSE(e);
  return seen;
}

TEST(LanePool, EveryLaneIsInExactlyOnePiece) {
  LanePool pool(3);
  const std::uint64_t count = 1001;
  std::vector<int> visits(count, 0);
  for (const Piece& p : pieces_of(pool, count, 1)) {
    EXPECT_LT(p.first, p.last);
    for (std::uint64_t lane = p.first; lane < p.last; ++lane) ++visits[lane];
  }
  for (std::uint64_t lane = 0; lane < count; ++lane) EXPECT_EQ(visits[lane], 1) << "lane " << lane;
}

TEST(LanePool, AStepIsSplitIntoMorePiecesThanThreads) {
  LanePool pool(2);
  // Pieces a few per thread: a thread the host preempts holds up a small share of the step.
  EXPECT_GT(pieces_of(pool, 4096, 1).size(), 2u);
}

TEST(LanePool, AWorkersPiecesComeInIncreasingOrder) {
  LanePool pool(4);
  const std::vector<Piece> seen = pieces_of(pool, 5000, 1);
  std::vector<std::uint64_t> last_first(pool.threads(), 0);
  std::vector<bool> any(pool.threads(), false);
  for (const Piece& p : seen) {
    ASSERT_LT(p.worker, pool.threads());
    if (any[p.worker]) {
      EXPECT_GT(p.first, last_first[p.worker]);
    }
    any[p.worker] = true;
    last_first[p.worker] = p.first;
  }
}

TEST(LanePool, NoPieceIsSmallerThanTheGrain) {
  LanePool pool(4);
  for (const Piece& p : pieces_of(pool, 1000, 300)) EXPECT_GE(p.last - p.first, 300u);
  const std::vector<Piece> one = pieces_of(pool, 10, 10);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].first, 0u);
  EXPECT_EQ(one[0].last, 10u);
}

TEST(LanePool, TheLowestFailingPiecesErrorIsReturned) {
  LanePool pool(3);
  for (int repeat = 0; repeat < 20; ++repeat) {
    // Lanes from 900 throw at once; lane 100's piece throws after a while, so that a later piece
    // has failed first on another thread.
    std::atomic<bool> late_failed{false};
    const std::exception_ptr e = pool.run(1000, 1, [&](std::uint64_t first, std::uint64_t last, unsigned) {
      if (first >= 900) {
        late_failed = true;
        throw std::runtime_error("late");
      }
      if (first <= 100 && 100 < last) {
        while (!late_failed) std::this_thread::yield();
        throw std::runtime_error("lane 100");
      }
    });
    ASSERT_TRUE(e);
    try {
      std::rethrow_exception(e);
    } catch (const std::runtime_error& error) {
      EXPECT_STREQ(error.what(), "lane 100");
    }
  }
}

TEST(LanePool, ARunAfterAFailedOneHasNoError) {
  LanePool pool(2);
  EXPECT_TRUE(
      pool.run(100, 1, [](std::uint64_t, std::uint64_t, unsigned) { throw std::runtime_error("x"); }));
  EXPECT_FALSE(pool.run(100, 1, [](std::uint64_t, std::uint64_t, unsigned) {}));
}

}  // namespace
}  // namespace treesim::host
