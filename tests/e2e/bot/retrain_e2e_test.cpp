// The labeler learns in `serve`: a repository's synced history and its maintainers' corrections of the bot's labels
// are in the database; once there are [github] retrain_corrections of them, the running server trains the model
// again, stores it, lists it in GET /api/v1/issues/labels, and labels that repository with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <thread>

#include "schema/bot_store.hpp"
#include "schema/store.hpp"
#include "schema/tracker_store.hpp"
#include "tests/e2e/bot/bot_support.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::testing {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
namespace fs = std::filesystem;

constexpr int kHistory = 40;       // synced issues, each of which the tracker labeled `performance`
constexpr int kCorrected = 24;     // of them, the bot applied `performance` and a maintainer took it off
constexpr int kRetrainAfter = 20;  // [github] retrain_corrections

class RetrainE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("perftriage-retrain-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = testing_support::e2e_db((dir_ / "db.sqlite").string());
  }
  void TearDown() override {
    server_.reset();
    fs::remove_all(dir_);
  }
  void start(int retrain_corrections) {
    server_.reset();
    server_ = std::make_unique<ServerProcess>(
        PERFTRIAGE_BINARY,
        std::vector<std::string>{"--db", db_, "--bot-label-layers", "tiered", "--bot-retrain-corrections",
                                 std::to_string(retrain_corrections), "--bot-retrain-check-s", "0.2"});
  }
  // The seed's text with a number in its title: issues the rules label `performance`, as the tracker did.
  static std::string title(int i) { return std::string(kSeedTitle) + " (" + std::to_string(i) + ")"; }
  void seed_history(int corrected) {
    auto store = schema::Store::open(db_);
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto& db = store->db();
    std::vector<schema::TrackerIssue> issues;
    for (int i = 0; i < kHistory; ++i)
      issues.push_back({kRepo, 5000 + i, title(i), seed_body(), {"performance"}, "open", "2024-01-01T00:00:00Z"});
    ASSERT_TRUE(schema::store_tracker_page(db, issues, {kRepo, "", "2024-01-01T00:00:00Z", 1, true, "", ""}).ok());
    for (int i = 0; i < corrected; ++i) {
      const std::int64_t n = 5000 + i;
      const schema::LabeledIssue row{
          kRepo, n, title(i), json::array(), json::array({"performance"}), json{{"labels", {"performance"}}}, {}};
      ASSERT_TRUE(schema::save_labeled_issue(db, row).ok());
      ASSERT_TRUE(schema::record_bot_labels(db, kRepo, n, {"performance"}).ok());
      ASSERT_TRUE(schema::record_human_removal(db, kRepo, n, "performance").ok());
    }
  }
  json label_seed() {
    const json request{{"title", kSeedTitle}, {"body", seed_body()}, {"repo", kRepo}};
    const auto r = http_call(server_->port(), "POST", "/api/v1/label", "application/json", request.dump());
    EXPECT_EQ(r.status, 200u) << r.body;
    return json::parse(r.body);
  }
  json models() { return json::parse(http_call(server_->port(), "GET", "/api/v1/issues/labels").body)["models"]; }
  static bool applied(const json& answer, const std::string& label) {
    const auto& l = answer["labels"];
    return std::find(l.begin(), l.end(), label) != l.end();
  }
  static json suggestion(const json& answer, const std::string& label) {
    for (const auto& s : answer["suggested"])
      if (s["value"] == label) return s;
    return json();
  }

  fs::path dir_;
  std::string db_;
  std::unique_ptr<ServerProcess> server_;
};

// Before: the built-in model's calibration applies `performance` on the seed. After 24 maintainers' removals of it on
// issues like the seed, the retrained calibration no longer keeps it at 0.9: it becomes a suggestion with its
// probability, and the model is listed with what it learned from.
TEST_F(RetrainE2E, ServeRetrainsTheLabelerOnceMaintainersCorrectedItEnough) {
  seed_history(kCorrected);
  start(0);  // retraining off: the built-in model
  const json before = label_seed();
  ASSERT_TRUE(applied(before, "performance")) << before.dump(1);
  EXPECT_TRUE(models().empty());

  start(kRetrainAfter);
  ASSERT_TRUE(wait_until([&] { return !models().empty(); }, milliseconds(120000))) << "no model was retrained";
  const json listed = models();
  ASSERT_EQ(listed.size(), 1u) << listed.dump(1);
  EXPECT_EQ(listed[0]["repo"], kRepo);
  EXPECT_EQ(listed[0]["issues"], kHistory);
  EXPECT_EQ(listed[0]["corrections"], kCorrected);
  EXPECT_EQ(listed[0]["corrections_since"], 0);

  const json after = label_seed();
  EXPECT_FALSE(applied(after, "performance")) << after.dump(1);
  const json s = suggestion(after, "performance");
  ASSERT_TRUE(s.is_object()) << after.dump(1);
  EXPECT_LT(s["p"].get<double>(), 0.9);
}

// Fewer corrections than the setting asks for: nothing is retrained, and the bot keeps its model.
TEST_F(RetrainE2E, TooFewCorrectionsRetrainNothing) {
  seed_history(kRetrainAfter - 1);
  start(kRetrainAfter);
  std::this_thread::sleep_for(milliseconds(1500));  // several passes of the check
  EXPECT_TRUE(models().empty());
  EXPECT_TRUE(applied(label_seed(), "performance"));
}

}  // namespace
}  // namespace perftriage::testing
