// GET /api/v1/issues/labels and the perftriage_bot_labels gauges: what maintainers did to the bot's labels, with a
// label a human added counted only when the repository's taxonomy ([[github.repos]]) has it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "schema/bot_store.hpp"
#include "server/app/app_context.hpp"
#include "server/routes/routes.hpp"
#include "tests/support/route_call.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

constexpr const char* kXpu = "intel/torch-xpu-ops";
constexpr const char* kPytorch = "pytorch/pytorch";

class LabelFeedbackRoutesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("perftriage-label-feedback-" + std::to_string(getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    Settings settings;
    settings.db_path = testing_support::test_db_file((dir_ / "db.sqlite").string());
    RepoSettings xpu;
    xpu.repo = kXpu;
    RepoSettings pytorch;
    pytorch.repo = kPytorch;
    pytorch.taxonomy = "pytorch";
    settings.github.repos = {xpu, pytorch};
    app_ = std::make_unique<AppContext>(settings);
    router_ = make_router();
  }
  void TearDown() override {
    app_.reset();
    std::filesystem::remove_all(dir_);
  }
  // Runs `f(db)` in one committed transaction.
  template <class F>
  void write(F&& f) {
    auto store = app_->store();
    ASSERT_TRUE(store);
    auto& db = (*store)->db();
    auto tx = schema::Transaction::begin(db);
    ASSERT_TRUE(tx);
    ASSERT_TRUE(f(db)) << "a write failed";
    ASSERT_TRUE(tx->commit());
  }
  void bot_labeled(const std::string& repo, std::int64_t number, const std::vector<std::string>& labels,
                   const json& suggested = json::array()) {
    const schema::LabeledIssue issue{
        repo, number, "t", json::array(), labels, {{"labels", labels}, {"suggested", suggested}}, ""};
    write([&](schema::Database& db) {
      return schema::save_labeled_issue(db, issue).ok() && schema::record_bot_labels(db, repo, number, labels).ok();
    });
  }
  void human(const std::string& action, const std::string& repo, std::int64_t number, const std::string& label) {
    write([&](schema::Database& db) {
      return action == "added" ? schema::record_human_label(db, repo, number, label).ok()
                               : schema::record_human_removal(db, repo, number, label).ok();
    });
  }
  ApiResponse get(const std::string& target) { return testing::call_route(router_, *app_, "GET", target, {}, {}); }
  // The answer's rows by "repo label".
  std::map<std::string, json> rows(const std::string& target) {
    const auto r = get(target);
    EXPECT_EQ(r.status, 200u) << r.body;
    const json answer = json::parse(r.body);
    std::map<std::string, json> out;
    for (const auto& row : answer["labels"])
      out[row["repo"].get<std::string>() + " " + row["label"].get<std::string>()] = row;
    return out;
  }

  std::filesystem::path dir_;
  std::unique_ptr<AppContext> app_;
  Router router_;
};

TEST_F(LabelFeedbackRoutesTest, EachLabelSaysWhatMaintainersDidWithIt) {
  const json suggested = json::array({{{"axis", "module"}, {"value", "module: dynamo"}, {"layer", "suggested"}}});
  bot_labeled(kXpu, 1, {"performance", "hw: BMG", "module: inductor"}, suggested);
  bot_labeled(kXpu, 2, {"performance", "hw: BMG"});
  human("removed", kXpu, 1, "module: inductor");
  human("added", kXpu, 1, "module: dynamo");  // the labeler suggested it
  human("added", kXpu, 2, "module: sdpa");    // it did not
  human("added", kXpu, 1, "skipped");         // not a label of the taxonomy: corrects nothing
  human("added", kXpu, 2, "ut_triage");

  auto all = rows("/api/v1/issues/labels");
  ASSERT_EQ(all.size(), 5u) << json(all).dump();
  const auto& perf = all["intel/torch-xpu-ops performance"];
  EXPECT_EQ(perf["axis"], "symptom");
  EXPECT_EQ(perf["applied"], 2);
  EXPECT_EQ(perf["kept"], 2);
  EXPECT_EQ(perf["precision_kept"], 1.0);
  const auto& inductor = all["intel/torch-xpu-ops module: inductor"];
  EXPECT_EQ(inductor["removed"], 1);
  EXPECT_EQ(inductor["kept"], 0);
  EXPECT_EQ(inductor["precision_kept"], 0.0);
  const auto& dynamo = all["intel/torch-xpu-ops module: dynamo"];
  EXPECT_EQ(dynamo["added"], 1);
  EXPECT_EQ(dynamo["suggested_then_added"], 1);
  EXPECT_TRUE(dynamo["precision_kept"].is_null());  // never applied
  const auto& sdpa = all["intel/torch-xpu-ops module: sdpa"];
  EXPECT_EQ(sdpa["added"], 1);
  EXPECT_EQ(sdpa["suggested_then_added"], 0);
  EXPECT_EQ(all.count("intel/torch-xpu-ops skipped"), 0u);
  EXPECT_EQ(all.count("intel/torch-xpu-ops ut_triage"), 0u);

  const auto totals = json::parse(get("/api/v1/issues/labels").body)["totals"];
  EXPECT_EQ(totals["applied"], 5);
  EXPECT_EQ(totals["kept"], 4);
  EXPECT_EQ(totals["removed"], 1);
  EXPECT_EQ(totals["added"], 2);
  EXPECT_EQ(totals["suggested_then_added"], 1);
  EXPECT_DOUBLE_EQ(totals["precision_kept"].get<double>(), 0.8);
}

// pytorch/pytorch is labeled with the pytorch taxonomy: its labels are what a human adding counts against there.
TEST_F(LabelFeedbackRoutesTest, EachRepositoryIsReadWithItsOwnTaxonomy) {
  bot_labeled(kXpu, 1, {"performance"});
  bot_labeled(kPytorch, 1, {"module: inductor"});
  human("added", kPytorch, 1, "module: dynamo");  // a pytorch label
  human("added", kPytorch, 1, "hw: BMG");         // torch-xpu-ops', not pytorch's
  human("added", kXpu, 1, "module: dynamo");

  auto pt = rows("/api/v1/issues/labels?repo=pytorch/pytorch");
  ASSERT_EQ(pt.size(), 2u) << json(pt).dump();
  EXPECT_EQ(pt["pytorch/pytorch module: dynamo"]["added"], 1);
  EXPECT_EQ(pt["pytorch/pytorch module: dynamo"]["axis"], "module");
  EXPECT_EQ(pt["pytorch/pytorch module: inductor"]["kept"], 1);
  EXPECT_EQ(rows("/api/v1/issues/labels").size(), 4u);
  EXPECT_EQ(json::parse(get("/api/v1/issues/labels?repo=pytorch/pytorch").body)["repo"], kPytorch);
}

TEST_F(LabelFeedbackRoutesTest, NothingLabeledYetIsAnEmptyAnswer) {
  const auto r = get("/api/v1/issues/labels");
  ASSERT_EQ(r.status, 200u) << r.body;
  const auto j = json::parse(r.body);
  EXPECT_TRUE(j["labels"].empty());
  EXPECT_TRUE(j["repo"].is_null());
  EXPECT_EQ(j["totals"]["applied"], 0);
  EXPECT_TRUE(j["totals"]["precision_kept"].is_null());
}

TEST_F(LabelFeedbackRoutesTest, ARepoThatIsNotOwnerSlashNameIs400) {
  const auto r = get("/api/v1/issues/labels?repo=not-a-repo");
  EXPECT_EQ(r.status, 400u) << r.body;
  EXPECT_EQ(json::parse(r.body)["error"]["code"], "bad_repo");
}

TEST_F(LabelFeedbackRoutesTest, MetricsCountEachLabelsOutcomes) {
  bot_labeled(kXpu, 1, {"performance", "module: inductor"});
  human("removed", kXpu, 1, "module: inductor");
  human("added", kXpu, 1, "module: dynamo");
  human("added", kXpu, 1, "skipped");
  const auto r = get("/metrics");
  ASSERT_EQ(r.status, 200u);
  for (const char* line :
       {R"(perftriage_bot_labels{label="performance",outcome="kept",repo="intel/torch-xpu-ops"} 1)",
        R"(perftriage_bot_labels{label="module: inductor",outcome="removed",repo="intel/torch-xpu-ops"} 1)",
        R"(perftriage_bot_labels{label="module: dynamo",outcome="added",repo="intel/torch-xpu-ops"} 1)",
        R"(perftriage_bot_labels{label="module: dynamo",outcome="kept",repo="intel/torch-xpu-ops"} 0)"}) {
    EXPECT_NE(r.body.find(line), std::string::npos) << line;
  }
  EXPECT_EQ(r.body.find(R"(label="skipped")"), std::string::npos);
}

}  // namespace
}  // namespace perftriage::server
