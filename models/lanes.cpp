#include "models/lanes.h"

#include <algorithm>
#include <stdexcept>

namespace treesim::models {

void Lanes::spread() {
  if (next_free_.empty()) next_free_.assign(count_, common_next_free_);
  if (busy_.empty()) busy_.assign(count_, 0);
  if (work_.empty()) work_.assign(count_, 0);
}

void Lanes::hold_all(std::uint64_t at, std::uint64_t cycles, std::uint64_t work) {
  if (at < latest_free_) throw std::logic_error("a resource was held twice at once");
  next_free_.clear();
  common_next_free_ = latest_free_ = at + cycles;
  common_busy_ += cycles;
  common_work_ += work;
  if (log_) log_->hold_level(level_, resource_, at - origin_, at - origin_ + cycles, work);
}

void Lanes::hold_one(std::uint64_t lane, std::uint64_t at, std::uint64_t cycles, std::uint64_t work) {
  spread();
  if (at < next_free_[lane]) throw std::logic_error("a resource was held twice at once");
  next_free_[lane] = at + cycles;
  latest_free_ = std::max(latest_free_, at + cycles);
  busy_[lane] += cycles;
  work_[lane] += work;
  if (log_) log_->hold(first_unit_ + lane, resource_, at - origin_, at - origin_ + cycles, work);
}

void Lanes::start_run(std::uint64_t origin, trace::TraceLog* log, topology::Unit first_unit, int level,
                      timing::Resource resource) {
  common_busy_ = common_work_ = 0;
  busy_.clear();
  work_.clear();
  origin_ = origin;
  log_ = log;
  first_unit_ = first_unit;
  level_ = level;
  resource_ = resource;
  if (log_) log_->declare(level, resource);
}

}  // namespace treesim::models
