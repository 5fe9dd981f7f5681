#include "models/host/lane_pool.h"

#include <sched.h>

#include <algorithm>

namespace treesim::host {

LanePool::LanePool(unsigned threads) : threads_(std::max(1u, threads)), errors_(threads_) {
  for (unsigned w = 0; w < threads_; ++w) pool_.emplace_back([this, w] { work(w); });
}

LanePool::~LanePool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : pool_) t.join();
}

unsigned LanePool::usable_cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return static_cast<unsigned>(std::max(1, CPU_COUNT(&set)));
  return std::max(1u, std::thread::hardware_concurrency());
}

namespace {

// Piece w of `count` lanes over `pieces` pieces.
std::uint64_t piece_start(std::uint64_t count, std::uint64_t pieces, std::uint64_t w) {
  return count * w / pieces;
}

// Pieces per taking thread: enough that a preempted thread's share is small, few enough that a
// piece's setup (its first PE's packed operands) stays negligible.
constexpr std::uint64_t kPiecesPerThread = 8;

}  // namespace

void LanePool::work(unsigned worker) {
  std::uint64_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    if (worker >= active_) continue;
    lock.unlock();
    take_pieces(worker);
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

void LanePool::take_pieces(unsigned worker) {
  // The run's fields were set under the mutex before the wake-up: stable until pending_ is 0.
  for (std::uint64_t piece = next_.fetch_add(1); piece < pieces_; piece = next_.fetch_add(1)) {
    try {
      (*body_)(piece_start(count_, pieces_, piece), piece_start(count_, pieces_, piece + 1), worker);
    } catch (...) {
      if (!errors_[worker].error) errors_[worker] = {piece, std::current_exception()};
    }
  }
}

std::exception_ptr LanePool::run(std::uint64_t count, std::uint64_t grain,
                                 const std::function<void(std::uint64_t, std::uint64_t, unsigned)>& body) {
  if (count == 0) return nullptr;
  const std::uint64_t by_grain = grain == 0 ? count : std::max<std::uint64_t>(1, count / grain);
  const auto takers = static_cast<unsigned>(std::min<std::uint64_t>({threads_, count, by_grain}));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (Error& e : errors_) e = {};
    body_ = &body;
    count_ = count;
    pieces_ = takers == 1 ? 1 : std::min<std::uint64_t>({count, by_grain, takers * kPiecesPerThread});
    next_.store(0);
    active_ = takers;
    pending_ = takers;
    ++generation_;
  }
  wake_.notify_all();
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  const Error* first = nullptr;
  for (const Error& e : errors_)
    if (e.error && (!first || e.piece < first->piece)) first = &e;
  return first ? first->error : nullptr;
}

}  // namespace treesim::host
