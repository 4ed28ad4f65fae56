#include "common/periodic_task.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace perftriage {
namespace {

using namespace std::chrono_literals;

TEST(PeriodicTask, RunsEveryIntervalUntilStopped) {
  std::atomic<int> runs{0};
  PeriodicTask task(5ms, [&] { ++runs; });
  task.start();
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (runs < 3 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  task.stop();
  const int after_stop = runs;
  EXPECT_GE(after_stop, 3);
  std::this_thread::sleep_for(30ms);
  EXPECT_EQ(runs, after_stop);  // nothing runs once stop() returned
}

TEST(PeriodicTask, StopWakesTheWaitAtOnceAndTheFirstRunWaitsOneInterval) {
  std::atomic<int> runs{0};
  PeriodicTask task(1h, [&] { ++runs; });
  task.start();
  const auto t0 = std::chrono::steady_clock::now();
  task.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  EXPECT_EQ(runs, 0);
}

}  // namespace
}  // namespace perftriage
