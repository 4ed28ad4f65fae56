// The response cache against a real database: answers that name their data stamp scopes (migration 011) outlive the
// writes that do not touch them (a new run of another platform, a token), and go as soon as one does (a new run of
// their platform, a deleted run, a tag that moves a compare base), whichever connection or process wrote.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "schema/data_stamps.hpp"
#include "schema/run_delete.hpp"
#include "schema/token_store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/ingest_service.hpp"
#include "server/http/response_cache.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/route_call.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

constexpr const char* kPath = "huggingface/inductor-results-huggingface-bfloat16-inference-xpu-performance.csv";

class DataStampsCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-stamps-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    settings_.db_path = testing_support::test_db_file((dir_ / "db.sqlite").string());
    app_ = std::make_unique<AppContext>(settings_);
    router_ = make_router();
    ingest(*app_, "bmg-0", "BMG", "2026-01-01T00:00:00Z", {});
    ingest(*app_, "bmg-1", "BMG", "2026-01-02T00:00:00Z", {});
    ingest(*app_, "bmg-2", "BMG", "2026-01-03T00:00:00Z", {});
    ingest(*app_, "pvc-0", "PVC", "2026-01-01T00:00:00Z", {});
  }
  void TearDown() override {
    app_.reset();
    std::filesystem::remove_all(dir_);
  }

  static void ingest(AppContext& app, const std::string& key, const std::string& platform, const std::string& created,
                     std::vector<std::string> tags) {
    auto store = app.store();
    ASSERT_TRUE(store);
    UploadMeta meta;
    meta.platform = platform;
    meta.run = key;
    meta.created_at = created;
    meta.tags = std::move(tags);
    auto stored =
        ingest_files(**store, meta, {{kPath, "dev,name,batch_size,speedup,abs_latency\nxpu,Bert,8,0.5,10\n"}});
    ASSERT_TRUE(stored) << stored.error().message;
  }

  // A GET as the transport runs it: the cache first, the route on a miss. Returns whether it was a hit.
  bool cached_get(const std::string& target) {
    const ApiRequest req = testing::request_of("GET", target);
    const auto negotiation = Negotiation::of(req);
    auto ticket = cache_.lookup(req, *app_, negotiation);
    if (ticket.hit) return true;
    EXPECT_TRUE(ticket.view) << target;
    const auto res = cache_.run(ticket, negotiation, *app_, [&] { return router_.dispatch(req, *app_); });
    EXPECT_EQ(res.status, 200u) << target << ": " << res.bytes();
    return false;
  }

  void warm(std::initializer_list<const char*> targets) {
    for (const char* target : targets) {
      cached_get(target);
      EXPECT_TRUE(cached_get(target)) << target << " was not kept";
    }
  }

  std::filesystem::path dir_;
  Settings settings_;
  std::unique_ptr<AppContext> app_;
  Router router_;
  ResponseCache cache_{16u << 20};
};

const char* const kCompare = "/api/v1/compare?base=bmg-1&target=bmg-2";
const char* const kPrevious = "/api/v1/compare?base=previous&target=bmg-2";
const char* const kBacklogPvc = "/api/v1/backlog?platform=PVC";
const char* const kSlowBmg = "/api/v1/slow?platform=BMG";
const char* const kSlowRun = "/api/v1/slow?run=bmg-1";
const char* const kRuns = "/api/v1/runs";
const char* const kRunsPvc = "/api/v1/runs?platform=pvc";
const char* const kResults = "/api/v1/results?run=bmg-1";  // declares no scope: any write makes it stale

TEST_F(DataStampsCache, ANewRunOfOnePlatformLeavesTheOtherPlatformAndOtherRunsCached) {
  warm({kCompare, kPrevious, kBacklogPvc, kSlowBmg, kSlowRun, kRuns, kRunsPvc, kResults});
  // Another process stores a new BMG nightly on the same file.
  AppContext other(settings_);
  ingest(other, "bmg-3", "BMG", "2026-01-04T00:00:00Z", {});
  EXPECT_TRUE(cached_get(kCompare));     // runs 1 and 2 did not change, nor did the tag bmg-1
  EXPECT_TRUE(cached_get(kBacklogPvc));  // another platform
  EXPECT_TRUE(cached_get(kRunsPvc));
  EXPECT_TRUE(cached_get(kSlowRun));    // one run by key
  EXPECT_FALSE(cached_get(kPrevious));  // "previous" reads the platform's order of runs
  EXPECT_FALSE(cached_get(kSlowBmg));   // the platform's latest run is a new one
  EXPECT_FALSE(cached_get(kRuns));      // every run
  EXPECT_FALSE(cached_get(kResults));   // no scope named: any write
}

TEST_F(DataStampsCache, AWriteThatChangesNoResultLeavesScopedAnswersCached) {
  warm({kCompare, kSlowBmg, kRuns, kResults});
  {
    auto store = app_->store();
    ASSERT_TRUE(store);
    ASSERT_TRUE(schema::create_token((*store)->db(), "writer", {"read"}, std::nullopt));
  }
  EXPECT_TRUE(cached_get(kCompare));
  EXPECT_TRUE(cached_get(kSlowBmg));
  EXPECT_TRUE(cached_get(kRuns));
  EXPECT_FALSE(cached_get(kResults));
}

TEST_F(DataStampsCache, DeletingARunDropsWhatReadIt) {
  warm({kCompare, kSlowRun, kBacklogPvc});
  {
    auto store = app_->store();
    ASSERT_TRUE(store);
    ASSERT_TRUE(schema::delete_run((*store)->db(), "bmg-1", "test"));
  }
  EXPECT_TRUE(cached_get(kBacklogPvc));
  // Both answers read bmg-1; each now answers 404, which is never kept, so the next call misses as well.
  for (const char* target : {kCompare, kSlowRun}) {
    const ApiRequest req = testing::request_of("GET", target);
    EXPECT_FALSE(cache_.lookup(req, *app_, Negotiation::of(req)).hit) << target;
  }
}

TEST_F(DataStampsCache, ARunTaggedWithTheBaseRuleDropsTheCompare) {
  warm({kCompare});
  // The base rule "bmg-1" is a tag first, a key after: a newer BMG run tagged "bmg-1" is the base now.
  ingest(*app_, "bmg-9", "BMG", "2025-12-01T00:00:00Z", {"bmg-1"});
  EXPECT_FALSE(cached_get(kCompare));
  EXPECT_TRUE(cached_get(kCompare));
}

TEST_F(DataStampsCache, TheTriggersStampRunPlatformAndTags) {
  auto store = app_->store();
  ASSERT_TRUE(store);
  std::optional<schema::Statement> prepared;
  auto before = schema::stamps_since((*store)->db(), 0, prepared);
  ASSERT_TRUE(before);
  std::int64_t top = 0;
  for (const auto& [scope, stamp] : *before) {
    if (scope == "*") top = stamp;
  }
  ASSERT_GT(top, 0);
  ingest(*app_, "pvc-1", "pvc", "2026-01-02T00:00:00Z", {"release-2.12"});
  auto after = schema::stamps_since((*store)->db(), top, prepared);
  ASSERT_TRUE(after);
  std::set<std::string> scopes;
  for (const auto& [scope, stamp] : *after) scopes.insert(scope);
  // The platform in its stored spelling, lower case; the new run's id; its tag; nothing of BMG.
  EXPECT_TRUE(scopes.count("*"));
  EXPECT_TRUE(scopes.count(schema::stamp_scope_platform("PVC")));
  EXPECT_TRUE(scopes.count(schema::stamp_scope_tag("PVC", "release-2.12")));
  EXPECT_EQ(std::count_if(scopes.begin(), scopes.end(), [](const std::string& s) { return s.rfind("run:", 0) == 0; }),
            1);
  EXPECT_FALSE(scopes.count(schema::stamp_scope_platform("BMG")));
}

}  // namespace
}  // namespace perftriage::server
