#pragma once
// A background thread that runs one piece of work every interval until stopped: the shape of the service's
// periodic tasks (the webhook deliveries' recovery; retention and tracking keep loops of their own). The work runs
// on this thread only, never twice at once; stop() wakes the wait at once and joins after the current run.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

namespace perftriage {

class PeriodicTask {
 public:
  PeriodicTask(std::chrono::milliseconds interval, std::function<void()> work)
      : interval_(interval), work_(std::move(work)) {}
  ~PeriodicTask() { stop(); }
  PeriodicTask(const PeriodicTask&) = delete;
  PeriodicTask& operator=(const PeriodicTask&) = delete;

  // The first run after one interval, then one every interval.
  void start() {
    if (thread_.joinable()) return;
    stopping_ = false;
    thread_ = std::thread([this] {
      std::unique_lock lock(mutex_);
      while (!wake_.wait_for(lock, interval_, [this] { return stopping_.load(); })) {
        lock.unlock();
        work_();
        lock.lock();
      }
    });
  }
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
  std::function<void()> work_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace perftriage
