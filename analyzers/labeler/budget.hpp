#pragma once
// Internal: the CPU budget of one labeling (LabelSettings::cpu_budget). The stages and the per-line loops call
// tick() / check(); once the calling thread has used more CPU time than the budget, check() throws
// BudgetExceeded, which label_issue_within turns into an Error (ErrorKind::unprocessable,
// "label_budget_exceeded"). The exception never leaves the labeler.
#include <chrono>
#include <cstdint>
#include <ctime>

namespace perftriage::analyzers::labeler {

struct BudgetExceeded {};

class Budget {
 public:
  Budget() = default;  // unlimited
  explicit Budget(std::chrono::microseconds limit)
      : limited_(limit != std::chrono::microseconds::max()),
        start_ns_(limited_ ? thread_cpu_ns() : 0),
        limit_ns_(limited_ ? limit.count() * 1000 : 0) {}

  // Reads the clock (a syscall: call per stage, or through tick() in loops).
  void check() const {
    if (limited_ && thread_cpu_ns() - start_ns_ >= limit_ns_) throw BudgetExceeded{};
  }
  // Cheap: reads the clock every 64th call.
  void tick() {
    if (limited_ && (++calls_ & 63U) == 0) check();
  }

 private:
  static std::int64_t thread_cpu_ns() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  }

  bool limited_ = false;
  std::int64_t start_ns_ = 0;
  std::int64_t limit_ns_ = 0;
  unsigned calls_ = 0;
};

inline void tick(Budget* b) {
  if (b) b->tick();
}
inline void check(const Budget* b) {
  if (b) b->check();
}

}  // namespace perftriage::analyzers::labeler
