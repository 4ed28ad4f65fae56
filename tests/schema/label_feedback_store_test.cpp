// What maintainers did to the bot's labels: kept, removed and added per label, and the corrections a retrain weighs,
// from the label memory the webhook writes (the same assertions on SQLite and, as `pg:`, PostgreSQL).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "schema/bot_store.hpp"
#include "schema/label_feedback_store.hpp"
#include "tests/support/store_fixture.hpp"

namespace perftriage::schema {
namespace {

using nlohmann::json;

using Counts = std::tuple<std::int64_t, std::int64_t, std::int64_t>;  // kept, removed, added

class LabelFeedbackStoreTest : public testing_support::StoreTest {
 protected:
  // The bot labeled issue `number` of `repo`: its answer stored (suggesting `suggested`) and `labels` applied.
  void bot_labeled(const std::string& repo, std::int64_t number, const std::vector<std::string>& labels,
                   const std::vector<std::string>& suggested = {}) {
    json result = {{"labels", labels}, {"suggested", json::array()}};
    for (const auto& s : suggested)
      result["suggested"].push_back({{"axis", "module"}, {"value", s}, {"reason", "r"}, {"layer", "suggested"}});
    const LabeledIssue issue{repo, number, "t", json::array(), labels, result, ""};
    ASSERT_TRUE(in_tx([&] { return save_labeled_issue(db(), issue); }).ok());
    ASSERT_TRUE(in_tx([&] { return record_bot_labels(db(), repo, number, labels); }).ok());
  }
  void human_removed(const std::string& repo, std::int64_t number, const std::string& label) {
    ASSERT_TRUE(in_tx([&] { return record_human_removal(db(), repo, number, label); }).ok());
  }
  void human_added(const std::string& repo, std::int64_t number, const std::string& label) {
    ASSERT_TRUE(in_tx([&] { return record_human_label(db(), repo, number, label); }).ok());
  }
  std::map<std::string, Counts> outcomes(std::string_view repo = {}) {
    auto rows = label_outcomes(db(), repo);
    EXPECT_TRUE(rows.ok()) << rows.error().message;
    std::map<std::string, Counts> out;
    if (!rows.ok()) return out;
    for (const auto& r : *rows) out[r.repo + " " + r.label] = {r.kept, r.removed, r.added};
    return out;
  }
  std::vector<LabelCorrection> corrections(std::string_view repo = {}) {
    auto rows = label_corrections(db(), repo);
    EXPECT_TRUE(rows.ok()) << rows.error().message;
    return rows.ok() ? *rows : std::vector<LabelCorrection>{};
  }
};

TEST_F(LabelFeedbackStoreTest, KeptRemovedAndAddedPerLabel) {
  bot_labeled("o/r", 5, {"performance", "hw: BMG", "module: inductor"}, {"module: dynamo"});
  bot_labeled("o/r", 6, {"performance"});
  human_removed("o/r", 5, "module: inductor");
  human_added("o/r", 5, "module: dynamo");
  human_added("o/r", 6, "triaged");
  const std::map<std::string, Counts> want{{"o/r hw: BMG", {1, 0, 0}},
                                           {"o/r module: dynamo", {0, 0, 1}},
                                           {"o/r module: inductor", {0, 1, 0}},
                                           {"o/r performance", {2, 0, 0}},
                                           {"o/r triaged", {0, 0, 1}}};
  EXPECT_EQ(outcomes(), want);
}

TEST_F(LabelFeedbackStoreTest, AHumanReaddingARemovedBotLabelCountsAsKept) {
  bot_labeled("o/r", 5, {"performance"});
  human_removed("o/r", 5, "performance");
  EXPECT_EQ(outcomes()["o/r performance"], Counts(0, 1, 0));
  human_added("o/r", 5, "performance");
  EXPECT_EQ(outcomes()["o/r performance"], Counts(1, 0, 0));
  EXPECT_TRUE(corrections().empty());
}

TEST_F(LabelFeedbackStoreTest, LabelsOnIssuesTheBotNeverLabeledAreNotAdded) {
  bot_labeled("o/r", 5, {"performance"});
  human_added("o/r", 9, "module: dynamo");  // an issue the bot never labeled
  human_added("x/y", 5, "module: dynamo");  // the same number in another repository
  const std::map<std::string, Counts> want{{"o/r performance", {1, 0, 0}}};
  EXPECT_EQ(outcomes(), want);
  EXPECT_TRUE(corrections().empty());
}

// GitHub sends `labeled` for each label an issue is opened with. One the labeler gave too was not the bot's to apply
// (it was there) and corrects nothing; one it did not give is what it missed.
TEST_F(LabelFeedbackStoreTest, ALabelTheLabelerGaveThatWasThereAlreadyIsNotAdded) {
  const LabeledIssue issue{"o/r", 5, "t", json::array(), {"performance", "hw: BMG"}, json::object(), ""};
  human_added("o/r", 5, "hw: BMG");  // opened with it, before the bot labeled
  human_added("o/r", 5, "os: Windows");
  ASSERT_TRUE(in_tx([&] { return save_labeled_issue(db(), issue); }).ok());
  ASSERT_TRUE(in_tx([&] { return record_bot_labels(db(), "o/r", 5, {"performance"}); }).ok());
  const std::map<std::string, Counts> want{{"o/r os: Windows", {0, 0, 1}}, {"o/r performance", {1, 0, 0}}};
  EXPECT_EQ(outcomes(), want);
  const auto rows = corrections();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].label, "os: Windows");
}

TEST_F(LabelFeedbackStoreTest, AHumanLabelRemovedAgainIsNoCorrection) {
  bot_labeled("o/r", 5, {"performance"});
  human_added("o/r", 5, "module: dynamo");
  human_removed("o/r", 5, "module: dynamo");
  const std::map<std::string, Counts> want{{"o/r performance", {1, 0, 0}}};
  EXPECT_EQ(outcomes(), want);
  EXPECT_TRUE(corrections().empty());
}

TEST_F(LabelFeedbackStoreTest, OneRepositoryOrEvery) {
  bot_labeled("o/r", 5, {"performance"});
  bot_labeled("Other/Repo", 5, {"performance"});
  human_removed("Other/Repo", 5, "performance");
  const std::map<std::string, Counts> one{{"o/r performance", {1, 0, 0}}};
  EXPECT_EQ(outcomes("o/r"), one);
  const std::map<std::string, Counts> other{{"Other/Repo performance", {0, 1, 0}}};
  EXPECT_EQ(outcomes("other/repo"), other);  // GitHub's names ignore case
  EXPECT_EQ(outcomes().size(), 2u);
  EXPECT_TRUE(outcomes("nobody/here").empty());
  EXPECT_EQ(corrections("o/r").size(), 0u);
  EXPECT_EQ(corrections("other/repo").size(), 1u);
}

TEST_F(LabelFeedbackStoreTest, CorrectionsAreTheRemovalsAndTheAdditions) {
  bot_labeled("o/r", 5, {"performance", "module: inductor"}, {"module: dynamo"});
  bot_labeled("o/r", 7, {"performance"}, {"module: dynamo"});
  human_removed("o/r", 5, "module: inductor");
  human_added("o/r", 5, "MODULE: Dynamo");  // suggested, in another case
  human_added("o/r", 7, "triaged");         // not suggested there
  const auto rows = corrections();
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(std::tie(rows[0].number, rows[0].label, rows[0].added, rows[0].suggested),
            std::make_tuple(std::int64_t{5}, std::string("MODULE: Dynamo"), true, true));
  EXPECT_EQ(std::tie(rows[1].number, rows[1].label, rows[1].added, rows[1].suggested),
            std::make_tuple(std::int64_t{5}, std::string("module: inductor"), false, false));
  EXPECT_EQ(std::tie(rows[2].number, rows[2].label, rows[2].added, rows[2].suggested),
            std::make_tuple(std::int64_t{7}, std::string("triaged"), true, false));
  for (const auto& r : rows) EXPECT_EQ(r.repo, "o/r");
}

// An answer stored without "suggested" (the labeler writes it only when it has some) is read as none.
TEST_F(LabelFeedbackStoreTest, AnAnswerWithoutSuggestionsSuggestedNothing) {
  const LabeledIssue issue{"o/r", 5, "t", json::array(), {"performance"}, {{"labels", {"performance"}}}, ""};
  ASSERT_TRUE(in_tx([&] { return save_labeled_issue(db(), issue); }).ok());
  ASSERT_TRUE(in_tx([&] { return record_bot_labels(db(), "o/r", 5, {"performance"}); }).ok());
  human_added("o/r", 5, "module: dynamo");
  const auto rows = corrections();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_TRUE(rows[0].added);
  EXPECT_FALSE(rows[0].suggested);
}

}  // namespace
}  // namespace perftriage::schema
