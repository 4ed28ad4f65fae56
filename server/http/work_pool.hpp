#pragma once
// A fixed set of threads with a bounded queue. The HTTP I/O threads hand request handling to a pool and go back to
// reading and writing sockets, so a minute-long ingest or a CPU-heavy classification never delays /healthz or a
// cached read. When the queue is full, try_submit refuses at once: the caller answers 503 with Retry-After instead
// of letting work (and memory) pile up without bound.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace perftriage::server {

class WorkPool {
 public:
  // `niceness` > 0 lowers the pool's threads' scheduling priority (Linux: per thread), so that on a machine with few
  // cores the I/O threads still get the CPU promptly while CPU-bound jobs saturate the pool.
  WorkPool(std::string name, unsigned threads, std::size_t queue_limit, int niceness = 0);
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;
  ~WorkPool();  // finishes queued work, then joins

  // False (and `job` not run) when `queue_limit` jobs are already waiting.
  bool try_submit(std::function<void()> job);
  void stop();  // no new jobs; queued ones still run; joins
  // Drops the jobs not started yet (destroying them unrun) and refuses new ones; returns how many were dropped.
  // Running jobs finish. For a drain that ran out of time: a queued request has stored nothing yet.
  std::size_t discard_queued();

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] std::size_t queue_limit() const noexcept { return queue_limit_; }
  [[nodiscard]] std::size_t queued() const;
  [[nodiscard]] std::size_t busy() const;

 private:
  void loop();
  std::string name_;
  std::size_t queue_limit_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> jobs_;
  std::size_t busy_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace perftriage::server
