#include "server/http/work_pool.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <exception>

#include "common/log.hpp"

namespace perftriage::server {

WorkPool::WorkPool(std::string name, unsigned threads, std::size_t queue_limit, int niceness)
    : name_(std::move(name)), queue_limit_(queue_limit) {
  for (unsigned i = 0; i < std::max(1u, threads); ++i) {
    threads_.emplace_back([this, niceness] {
      if (niceness > 0) (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), niceness);
      loop();
    });
  }
}

WorkPool::~WorkPool() { stop(); }

bool WorkPool::try_submit(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || jobs_.size() >= queue_limit_) return false;
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
  return true;
}

void WorkPool::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
}

std::size_t WorkPool::discard_queued() {
  std::deque<std::function<void()>> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(jobs_);
  }
  wake_.notify_all();
  return dropped.size();  // destroyed here, outside the lock (a job's captures may run destructors that take it)
}

std::size_t WorkPool::queued() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

std::size_t WorkPool::busy() const {
  std::lock_guard lock(mutex_);
  return busy_;
}

void WorkPool::loop() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping and drained
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++busy_;
    }
    try {
      job();
    } catch (const std::exception& e) {  // a job answers its own errors; this is a last line of defence
      log().error("{} pool: job failed: {}", name_, e.what());
    } catch (...) {
      log().error("{} pool: job failed", name_);
    }
    std::lock_guard lock(mutex_);
    --busy_;
  }
}

}  // namespace perftriage::server
