// The cases a labeled issue names (migration 017): written with the labeled issue, replaced when it is relabeled,
// narrowed by the issue's hw axis, dropped from the open issues when the issue is closed (a tracker sync saying so,
// or a webhook `closed`).
#include <gtest/gtest.h>

#include <optional>

#include "schema/bot_store.hpp"
#include "schema/issue_case_store.hpp"
#include "schema/store.hpp"
#include "schema/tracker_store.hpp"
#include "tests/support/store_fixture.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::schema {
namespace {

nlohmann::json a_case(const char* suite, const char* dtype, const char* mode, const char* model,
                      std::optional<double> speedup = std::nullopt) {
  nlohmann::json s = nullptr;
  if (speedup) s = *speedup;
  return {{"suite", suite}, {"dtype", dtype}, {"mode", mode}, {"model", model}, {"speedup", s}, {"e2e", true}};
}

LabeledIssue labeled(std::int64_t number, nlohmann::json cases, nlohmann::json axes = nlohmann::json::array(),
                     std::string at = "2026-08-10T09:00:00Z") {
  return {"intel/torch-xpu-ops",
          number,
          "issue " + std::to_string(number),
          std::move(axes),
          nlohmann::json::array(),
          {{"cases", std::move(cases)}},
          std::move(at)};
}

const CaseName kElectra{"huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering"};

class IssueCaseStoreTest : public testing_support::StoreTest {
 protected:
  void save(const LabeledIssue& issue) {
    auto tx = Transaction::begin(db());
    ASSERT_TRUE(tx.ok());
    auto saved = save_labeled_issue(db(), issue);
    ASSERT_TRUE(saved.ok()) << saved.error().message;
    ASSERT_TRUE(tx->commit().ok());
  }
  std::vector<std::int64_t> open_for(const CaseName& name, const char* platform) {
    auto found = open_issues_for_case(db(), name, platform);
    EXPECT_TRUE(found.ok()) << found.error().message;
    std::vector<std::int64_t> out;
    if (found.ok())
      for (const auto& i : *found) out.push_back(i.number);
    return out;
  }
};

TEST(IssueCasesOf, E2ECasesOncePerHardware) {
  const nlohmann::json result = {
      {"cases",
       {a_case("huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering", 0.662224),
        {{"suite", "test/xpu/test_ops.py"}, {"model", "TestCommon"}, {"test_id", "test_ops.py::TestCommon"}}}}};
  const nlohmann::json axes = {{{"axis", "hw"}, {"value", "BMG"}},
                               {{"axis", "hw"}, {"value", "PVC"}},
                               {{"axis", "dtype"}, {"value", "bfloat16"}}};
  const auto links = issue_cases_of(result, axes);
  ASSERT_EQ(links.size(), 2u);  // the unit-test case is no backlog case
  EXPECT_EQ(links[0].platform, "bmg");
  EXPECT_EQ(links[1].platform, "pvc");
  EXPECT_EQ(links[0].model, "ElectraForQuestionAnswering");
  EXPECT_DOUBLE_EQ(links[0].speedup.value_or(0), 0.662224);
  const auto anywhere = issue_cases_of(result, nlohmann::json::array());
  ASSERT_EQ(anywhere.size(), 1u);
  EXPECT_EQ(anywhere[0].platform, "");
  EXPECT_TRUE(issue_cases_of(nlohmann::json::object(), axes).empty());
}

TEST_F(IssueCaseStoreTest, SavedWithTheIssueAndReplacedOnRelabel) {
  save(labeled(
      3761,
      nlohmann::json::array({a_case("huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering", 0.662224)}),
      {{{"axis", "hw"}, {"value", "BMG"}}}));
  EXPECT_EQ(open_for(kElectra, "BMG"), (std::vector<std::int64_t>{3761}));
  EXPECT_EQ(open_for(kElectra, "bmg"), (std::vector<std::int64_t>{3761}));  // any spelling
  EXPECT_TRUE(open_for(kElectra, "A100").empty());                          // the issue is about BMG
  auto found = open_issues_for_case(db(), kElectra, "BMG");
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].title, "issue 3761");
  EXPECT_DOUBLE_EQ((*found)[0].speedup.value_or(0), 0.662224);
  EXPECT_EQ(to_json((*found)[0])["ref"], "intel/torch-xpu-ops#3761");

  // Relabeled without the case and without hardware: the old link is gone, the new one applies everywhere.
  save(labeled(3761, nlohmann::json::array({a_case("torchbench", "bfloat16", "inference", "maml")})));
  EXPECT_TRUE(open_for(kElectra, "BMG").empty());
  EXPECT_EQ(open_for({"torchbench", "bfloat16", "inference", "maml"}, "A100"), (std::vector<std::int64_t>{3761}));
  auto links = open_issue_links(db(), "PVC");
  ASSERT_TRUE(links.ok());
  ASSERT_EQ(links->size(), 1u);
  EXPECT_EQ((*links)[0].name.model, "maml");
}

TEST_F(IssueCaseStoreTest, NewestIssueFirstAndOtherCasesApart) {
  save(labeled(3761,
               nlohmann::json::array({a_case("huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering")})));
  save(labeled(3900,
               nlohmann::json::array({a_case("huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering"),
                                      a_case("huggingface", "float16", "inference", "ElectraForQuestionAnswering")})));
  EXPECT_EQ(open_for(kElectra, "BMG"), (std::vector<std::int64_t>{3900, 3761}));
  EXPECT_EQ(open_for({"huggingface", "float16", "inference", "ElectraForQuestionAnswering"}, "BMG"),
            (std::vector<std::int64_t>{3900}));
  EXPECT_TRUE(open_for({"huggingface", "bfloat16", "training", "ElectraForQuestionAnswering"}, "BMG").empty());
}

TEST_F(IssueCaseStoreTest, ClosedIssuesTrackNothing) {
  save(labeled(3761,
               nlohmann::json::array({a_case("huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering")})));
  save(labeled(3900,
               nlohmann::json::array({a_case("huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering")})));
  // A sync that saw #3761 closed after it was labeled: closed. #3900 was closed before its (re)labeling: the newer
  // labeling (a reopen relabels) wins until a sync says otherwise.
  TrackerSyncState progress{"Intel/Torch-XPU-Ops", "", "2026-09-01T00:00:00Z", 1, false, "", ""};
  std::vector<TrackerIssue> issues = {{"Intel/Torch-XPU-Ops", 3761, "t", "", {}, "closed", "2026-09-01T00:00:00Z"},
                                      {"Intel/Torch-XPU-Ops", 3900, "t", "", {}, "closed", "2026-08-01T00:00:00Z"}};
  ASSERT_TRUE(store_tracker_page(db(), issues, progress).ok());
  EXPECT_EQ(open_for(kElectra, "BMG"), (std::vector<std::int64_t>{3900}));
  // A webhook `closed`: the links go.
  {
    auto tx = Transaction::begin(db());
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(clear_issue_cases(db(), "intel/torch-xpu-ops", 3900).ok());
    ASSERT_TRUE(tx->commit().ok());
  }
  EXPECT_TRUE(open_for(kElectra, "BMG").empty());
}

}  // namespace
}  // namespace perftriage::schema
