#include "server/http/work_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>

#include "server/bot/github_client.hpp"
#include "server/http/router.hpp"

namespace perftriage::server {
namespace {

TEST(WorkPool, RunsEveryAcceptedJob) {
  std::atomic<int> ran{0};
  {
    WorkPool pool("test", 2, 100);
    for (int i = 0; i < 50; ++i) ASSERT_TRUE(pool.try_submit([&] { ++ran; }));
  }  // the destructor drains the queue
  EXPECT_EQ(ran.load(), 50);
}

TEST(WorkPool, RefusesWhenTheQueueIsFull) {
  WorkPool pool("heavy", 1, 2);
  std::promise<void> release;
  auto gate = release.get_future().share();
  std::promise<void> started;
  ASSERT_TRUE(pool.try_submit([&, gate] {
    started.set_value();
    gate.wait();
  }));
  started.get_future().wait();  // the only worker is busy
  EXPECT_TRUE(pool.try_submit([gate] { gate.wait(); }));
  EXPECT_TRUE(pool.try_submit([gate] { gate.wait(); }));
  EXPECT_EQ(pool.queued(), 2u);
  EXPECT_FALSE(pool.try_submit([] {})) << "a third waiting job is refused";
  release.set_value();
  pool.stop();
  EXPECT_EQ(pool.queued(), 0u);
  EXPECT_FALSE(pool.try_submit([] {})) << "a stopped pool takes nothing";
}

TEST(WorkPool, AJobThatThrowsDoesNotKillTheWorker) {
  WorkPool pool("test", 1, 10);
  std::promise<int> after;
  ASSERT_TRUE(pool.try_submit([] { throw std::runtime_error("boom"); }));
  ASSERT_TRUE(pool.try_submit([&] { after.set_value(7); }));
  auto f = after.get_future();
  ASSERT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  EXPECT_EQ(f.get(), 7);
}

TEST(GitHubRepoName, FollowsGitHubsGrammar) {
  for (const char* ok : {"intel/torch-xpu-ops", "pytorch/pytorch", "a/b", "a-b/c.d_e", "A1/.github"}) {
    EXPECT_TRUE(is_github_repo(ok)) << ok;
  }
  for (const char* bad : {"a/b/milestones?x=", "a/b/c", "a", "/b", "a/", "-a/b", "a-/b", "a--b/c", "a/..", "a/.",
                          "a b/c", "a/b c", "a/b?x", "a/b#1", "a%2Fb/c"}) {
    EXPECT_FALSE(is_github_repo(bad)) << bad;
  }
  EXPECT_FALSE(is_github_repo(std::string(40, 'a') + "/b")) << "owner over 39 characters";
  EXPECT_FALSE(is_github_repo("a/" + std::string(101, 'b'))) << "name over 100 characters";
}

TEST(RouterOptions, TheTransportLearnsLaneAndBodyLimitFromTheHeader) {
  Router router;
  auto noop = [](const ApiRequest&, AppContext&) { return ApiResponse{}; };
  router.add("POST", "/api/v1/uploads", noop, RouteOptions::on(Lane::heavy, 0));
  router.add("GET", "/healthz", noop, RouteOptions::on(Lane::io));
  router.add("GET", "/api/v1/runs/{key}", noop);
  EXPECT_EQ(router.options_for("POST", "/api/v1/uploads").lane, Lane::heavy);
  EXPECT_EQ(router.options_for("POST", "/api/v1/uploads").max_body_bytes, 0u);
  EXPECT_EQ(router.options_for("GET", "/healthz").lane, Lane::io);
  EXPECT_EQ(router.options_for("HEAD", "/healthz").lane, Lane::io);
  EXPECT_EQ(router.options_for("GET", "/api/v1/runs/x").lane, Lane::read);
  EXPECT_EQ(router.options_for("GET", "/api/v1/runs/x").max_body_bytes, RouteOptions::kSmallBody);
  // An unknown route or method gets the small default: a large body is refused before it is read.
  EXPECT_EQ(router.options_for("GET", "/api/v1/uploads").max_body_bytes, RouteOptions::kSmallBody);
  EXPECT_EQ(router.options_for("PUT", "/nowhere").lane, Lane::read);
}

}  // namespace
}  // namespace perftriage::server
