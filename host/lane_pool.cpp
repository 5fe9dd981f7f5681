#include "host/lane_pool.h"

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
std::uint64_t piece_start(std::uint64_t count, unsigned pieces, unsigned w) { return count * w / pieces; }

}  // namespace

void LanePool::work(unsigned worker) {
  std::uint64_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(mutex_);
    wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
    if (stop_) return;
    seen = generation_;
    if (worker >= active_) continue;
    const unsigned pieces = active_;
    const std::uint64_t count = count_;
    const auto* body = body_;
    lock.unlock();
    try {
      (*body)(piece_start(count, pieces, worker), piece_start(count, pieces, worker + 1), worker);
    } catch (...) {
      errors_[worker] = std::current_exception();
    }
    lock.lock();
    if (--pending_ == 0) done_.notify_one();
  }
}

std::exception_ptr LanePool::run(std::uint64_t count, std::uint64_t grain,
                                 const std::function<void(std::uint64_t, std::uint64_t, unsigned)>& body) {
  if (count == 0) return nullptr;
  const std::uint64_t by_grain = grain == 0 ? count : std::max<std::uint64_t>(1, count / grain);
  const auto pieces = static_cast<unsigned>(std::min<std::uint64_t>({threads_, count, by_grain}));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& e : errors_) e = nullptr;
    body_ = &body;
    count_ = count;
    active_ = pieces;
    pending_ = pieces;
    ++generation_;
  }
  wake_.notify_all();
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  for (const std::exception_ptr& e : errors_)
    if (e) return e;
  return nullptr;
}

}  // namespace treesim::host
