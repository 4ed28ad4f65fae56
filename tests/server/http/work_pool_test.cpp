#include "server/http/work_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>

#include "server/bot/github_client.hpp"
#include "server/http/client_limiter.hpp"
#include "server/http/router.hpp"
#include "server/routes/routes.hpp"

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

TEST(ClientLimiter, EachClientGetsItsShareAndNoMore) {
  auto limiter = std::make_shared<ClientLimiter>(2);
  auto a1 = limiter->try_enter("addr:10.0.0.1");
  auto a2 = limiter->try_enter("addr:10.0.0.1");
  ASSERT_TRUE(a1 && a2);
  EXPECT_EQ(limiter->try_enter("addr:10.0.0.1"), nullptr) << "a third request of the same client";
  auto b = limiter->try_enter("token:ci");
  EXPECT_NE(b, nullptr) << "another client is not held back by the first";
  EXPECT_EQ(limiter->held("addr:10.0.0.1"), 2u);
  a1.reset();
  EXPECT_EQ(limiter->held("addr:10.0.0.1"), 1u);
  EXPECT_NE(limiter->try_enter("addr:10.0.0.1"), nullptr) << "a released slot can be taken again";
}

TEST(ClientLimiter, ForgetsClientsThatHoldNothing) {
  auto limiter = std::make_shared<ClientLimiter>(1);
  for (int i = 0; i < 1000; ++i) {
    auto slot = limiter->try_enter("addr:10.0.0." + std::to_string(i));
    ASSERT_NE(slot, nullptr);
  }
  EXPECT_EQ(limiter->clients(), 0u) << "the map holds only clients with work in flight";
  auto held = limiter->try_enter("addr:x");
  EXPECT_EQ(limiter->try_enter("addr:x"), nullptr);
  EXPECT_EQ(limiter->clients(), 1u) << "a refusal leaves no entry behind";
}

TEST(ClientLimiter, ASlotOutlivesTheLimitersOwner) {
  std::shared_ptr<ClientLimiter::Slot> slot;
  {
    auto limiter = std::make_shared<ClientLimiter>(1);
    slot = limiter->try_enter("addr:x");
  }
  slot.reset();  // gives its share back to a limiter kept alive by the slot (ASan would report a use after free)
  SUCCEED();
}

TEST(ClientLimiter, ATokenNamesTheClientElseItsAddress) {
  EXPECT_EQ(client_key("ci-nightly", "10.0.0.1"), "token:ci-nightly");
  EXPECT_EQ(client_key("", "10.0.0.1"), "addr:10.0.0.1");
}

// What strangers may ask for runs apart from what CI and GitHub send.
TEST(RouterOptions, ClassifyAndLabelRunOnTheComputeLaneWritesOnTheHeavyOne) {
  const Router router = make_router();
  EXPECT_EQ(router.options_for("POST", "/api/v1/classify").lane, Lane::compute);
  EXPECT_EQ(router.options_for("POST", "/api/v1/label").lane, Lane::compute);
  EXPECT_EQ(router.options_for("POST", "/api/v1/uploads").lane, Lane::heavy);
  EXPECT_EQ(router.options_for("POST", "/webhooks/github").lane, Lane::heavy);
  for (const auto* route : router.table()) {
    if (route->lane == Lane::compute) {
      EXPECT_EQ(route->scope, Scope::read) << route->pattern << ": only reads share the compute pool";
    }
  }
}

}  // namespace
}  // namespace perftriage::server
