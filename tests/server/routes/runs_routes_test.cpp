// GET /api/v1/runs pages newest first: limit, next_cursor in the JSON envelope, a Link header in every format, and the
// errors for a bad limit or cursor naming the parameter.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "server/app/app_context.hpp"
#include "server/app/ingest_service.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/route_call.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

class RunsRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-runs-routes-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    Settings settings;
    settings.db_path = testing_support::test_db_file((dir_ / "db.sqlite").string());
    app_ = std::make_unique<AppContext>(settings);
    router_ = make_router();
    auto store = app_->store();
    ASSERT_TRUE(store);
    for (int i = 0; i < 5; ++i) {
      UploadMeta meta;
      meta.platform = i < 4 ? "BMG" : "PVC";
      meta.run = "run-" + std::to_string(i);
      meta.created_at = "2026-01-0" + std::to_string(i + 1) + "T00:00:00Z";
      const std::string csv =
          "dev,name,batch_size,speedup,abs_latency\nxpu,Bert,8," + std::to_string(0.5 + i) + ",10\n";
      auto stored = ingest_files(**store, meta,
                                 {{"huggingface/inductor-results-huggingface-bfloat16-inference-xpu-"
                                   "performance.csv",
                                   csv}});
      ASSERT_TRUE(stored) << stored.error().message;
    }
  }
  void TearDown() override {
    app_.reset();
    std::filesystem::remove_all(dir_);
  }
  ApiResponse get(const std::string& target) { return testing::call_route(router_, *app_, "GET", target, {}, {}); }
  static std::string header(const ApiResponse& r, const std::string& name) {
    for (const auto& [k, v] : r.headers) {
      if (k == name) return v;
    }
    return {};
  }

  std::filesystem::path dir_;
  std::unique_ptr<AppContext> app_;
  Router router_;
};

TEST_F(RunsRoutesTest, PagesFollowTheCursorNewestFirst) {
  std::vector<std::string> keys;
  std::string target = "/api/v1/runs?limit=2";
  int pages = 0;
  while (!target.empty() && pages++ < 10) {
    auto r = get(target);
    ASSERT_EQ(r.status, 200u) << r.body;
    const json j = json::parse(r.body);
    for (const auto& run : j["runs"]) keys.push_back(run["key"].get<std::string>());
    if (j["next_cursor"].is_null()) {
      EXPECT_EQ(header(r, "Link"), "");
      target.clear();
    } else {
      const std::string link = header(r, "Link");
      ASSERT_EQ(link.rfind("</api/v1/runs?cursor=", 0), 0u) << link;
      target = link.substr(1, link.find('>') - 1);  // the Link header's URL is the next page
    }
  }
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(keys, (std::vector<std::string>{"run-4", "run-3", "run-2", "run-1", "run-0"}));
  // Counts come with every run: run-0's one row is slow (0.5).
  auto last = get("/api/v1/runs?platform=bmg&limit=100");
  const json j = json::parse(last.body);
  ASSERT_EQ(j["runs"].size(), 4u);
  EXPECT_EQ(j["runs"][3]["key"], "run-0");
  EXPECT_EQ(j["runs"][3]["counts"]["slow"], 1);
  EXPECT_EQ(j["runs"][2]["counts"]["slow"], 0);
  EXPECT_TRUE(j["next_cursor"].is_null());
}

TEST_F(RunsRoutesTest, MarkdownPagesCarryTheLinkToo) {
  auto r = get("/api/v1/runs?limit=1&format=md&platform=BMG");
  ASSERT_EQ(r.status, 200u);
  EXPECT_NE(r.body.find("run-3"), std::string::npos);
  EXPECT_EQ(r.body.find("run-2"), std::string::npos);
  const std::string link = header(r, "Link");
  EXPECT_NE(link.find("format=md"), std::string::npos) << link;
  EXPECT_NE(link.find("platform=BMG"), std::string::npos) << link;
}

TEST_F(RunsRoutesTest, BadLimitOrCursorNamesTheParameter) {
  for (const auto& [target, column] :
       std::vector<std::pair<std::string, std::string>>{{"/api/v1/runs?limit=0", "limit"},
                                                        {"/api/v1/runs?limit=1001", "limit"},
                                                        {"/api/v1/runs?limit=ten", "limit"},
                                                        {"/api/v1/runs?cursor=not-a-cursor", "cursor"}}) {
    auto r = get(target);
    EXPECT_EQ(r.status, 400u) << target;
    EXPECT_EQ(json::parse(r.body)["error"]["column"], column) << target << " " << r.body;
  }
}

}  // namespace
}  // namespace perftriage::server
