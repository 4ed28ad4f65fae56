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

// A first delay shorter than the interval: one run soon after the start, none more within the hour; a run that asks
// whether the task is stopping learns it once stop() was called.
TEST(PeriodicTask, TheFirstRunCanComeBeforeTheIntervalAndAskWhetherToStop) {
  std::atomic<int> runs{0};
  std::atomic<bool> saw_stop{false};
  PeriodicTask* self = nullptr;
  PeriodicTask task(
      1h,
      [&] {
        ++runs;
        const auto deadline = std::chrono::steady_clock::now() + 10s;
        while (!self->stopping() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
        saw_stop = self->stopping();
      },
      5ms);
  self = &task;
  EXPECT_FALSE(task.stopping());
  task.start();
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (runs < 1 && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  task.stop();
  EXPECT_EQ(runs, 1);
  EXPECT_TRUE(saw_stop);
}

}  // namespace
}  // namespace perftriage
