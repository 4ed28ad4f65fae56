#pragma once
// A background thread that runs one piece of work every interval until stopped: the shape of the service's
// periodic tasks (the webhook deliveries' recovery; retention and tracking keep loops of their own). The work runs
// on this thread only, never twice at once; stop() wakes the wait at once and joins after the current run.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace perftriage {

class PeriodicTask {
 public:
  // The first run after `first` (one interval when not given), then one every interval.
  PeriodicTask(std::chrono::milliseconds interval, std::function<void()> work,
               std::optional<std::chrono::milliseconds> first = std::nullopt)
      : interval_(interval), first_(first.value_or(interval)), work_(std::move(work)) {}
  ~PeriodicTask() { stop(); }
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  void start() {
    if (thread_.joinable()) return;
    stopping_ = false;
    thread_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      for (auto wait = first_; !wake_.wait_for(lock, wait, [this] { return stopping_.load(); }); wait = interval_) {
        lock.unlock();
        work_();
        lock.lock();
      }
    });
  }
  // True once stop() was called: a long run of the work may ask, and end early.
  [[nodiscard]] bool stopping() const noexcept { return stopping_.load(); }
  void stop() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::chrono::milliseconds interval_;
  std::chrono::milliseconds first_;
  std::function<void()> work_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace perftriage
