// Host threads for the lanes of a lock-step step. The lanes of a step are independent (every PE
// works on its own LM), so a step's lanes are split into contiguous pieces, a few per thread, that
// the threads take in turn: a thread the host preempts holds up one piece, not half the step. Each
// lane's result is its own, so the split changes nothing the simulation computes. The pool's own
// threads run every piece, the caller only waits: the caller may be a SystemC thread, whose stack
// is a coroutine's, and nothing should unwind an exception there (AddressSanitizer cannot follow
// it). The threads wait on a condition variable between steps.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace treesim::host {

class LanePool {
 public:
  // `threads` host threads (at least 1).
  explicit LanePool(unsigned threads);
  ~LanePool();
  LanePool(const LanePool&) = delete;
  LanePool& operator=(const LanePool&) = delete;

  unsigned threads() const { return threads_; }

  // Calls body(first, last, worker) over pieces that cover lanes [0, count), worker < threads();
  // a worker may take several pieces, in increasing order. With fewer than `grain` lanes per
  // thread, fewer threads take part (a small step costs less on one thread than waking the
  // others). Returns when every piece is done: the exception of the lowest piece that threw, if
  // any (not rethrown).
  [[nodiscard]] std::exception_ptr run(
      std::uint64_t count, std::uint64_t grain,
      const std::function<void(std::uint64_t first, std::uint64_t last, unsigned worker)>& body);

  // The cores this process may run on (its affinity mask, which containers and taskset narrow).
  static unsigned usable_cores();

 private:
  void work(unsigned worker);
  void take_pieces(unsigned worker);
  const unsigned threads_;
  std::vector<std::thread> pool_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::uint64_t generation_ = 0;
  unsigned pending_ = 0, active_ = 0;  // workers not yet finished; workers taking part in this run
  bool stop_ = false;
  std::uint64_t count_ = 0, pieces_ = 0;
  std::atomic<std::uint64_t> next_{0};  // the next piece to take
  const std::function<void(std::uint64_t, std::uint64_t, unsigned)>* body_ = nullptr;
  struct Error {
    std::uint64_t piece = 0;
    std::exception_ptr error;
  };
  std::vector<Error> errors_;  // each worker's first (lowest) failed piece
};

}  // namespace treesim::host
