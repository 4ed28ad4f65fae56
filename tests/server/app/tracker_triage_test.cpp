// A case named in an open tracker issue is acknowledged with that issue (who "tracker") until a person decides; the
// explain answer and the triage reads carry the issue; closing the issue returns the case to the backlog's state.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "schema/bot_store.hpp"
#include "schema/issue_case_store.hpp"
#include "schema/triage_store.hpp"
#include "server/app/backlog_changes.hpp"
#include "server/app/case_issues.hpp"
#include "server/app/explain.hpp"
#include "server/app/ingest_service.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage {
namespace {

constexpr const char* kHeader =
    "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,"
    "calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,autograd_compiles,"
    "cudagraph_skips\n";

class TrackerTriage : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
    std::string csv = kHeader;
    for (const auto& [model, speedup] : {std::pair{"ElectraForQuestionAnswering", 0.66}, {"BertForMaskedLM", 0.8}})
      csv += fmt::format("xpu,{},8,{:.6f},10.0,1,0,0,0,1,1,0,0,0,0,0\n", model, speedup);
    server::UploadMeta meta;
    meta.run = "n01";
    meta.platform = "BMG";
    meta.created_at = "2026-01-01T00:00:00Z";
    meta.axes = {"huggingface", "bfloat16", "inference", "", "", ""};
    auto summary = server::ingest_files(*store_, meta, {{"perf.csv", csv}});
    ASSERT_TRUE(summary) << summary.error().message;
  }
  void label(std::int64_t number, const char* hw) {
    nlohmann::json cases = nlohmann::json::array();
    cases.push_back({{"suite", "huggingface"},
                     {"dtype", "bfloat16"},
                     {"mode", "inference"},
                     {"model", "ElectraForQuestionAnswering"},
                     {"speedup", 0.662224}});
    nlohmann::json axes = nlohmann::json::array();
    if (*hw) axes.push_back({{"axis", "hw"}, {"value", hw}});
    const schema::LabeledIssue row{
        "intel/torch-xpu-ops", number, "slow cases", axes, nlohmann::json::array(), {{"cases", cases}},
        "2026-08-10T09:00:00Z"};
    auto tx = schema::Transaction::begin(store_->db());
    ASSERT_TRUE(tx);
    ASSERT_TRUE(schema::save_labeled_issue(store_->db(), row));
    ASSERT_TRUE(tx->commit());
  }
  schema::TriageCase triage(const std::string& model, const char* platform = "bmg") {
    auto c = schema::find_triage(store_->db(), {platform, "huggingface", "bfloat16", "inference", model, ""});
    EXPECT_TRUE(c && *c);
    return c && *c ? **c : schema::TriageCase{};
  }
  Result<schema::TriageCase> decide(const char* state, const char* issue = "", const char* reason = "") {
    auto tx = schema::Transaction::begin(store_->db());
    EXPECT_TRUE(tx);
    auto c = schema::set_triage(store_->db(),
                                {"BMG", "huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering", ""},
                                state, issue, reason, "alice");
    if (c) {
      EXPECT_TRUE(tx->commit());
    }
    return c;
  }
  std::optional<schema::Store> store_;
};

TEST_F(TrackerTriage, AnOpenIssueAcknowledgesTheCasesItNames) {
  EXPECT_EQ(triage("ElectraForQuestionAnswering").state, "new");
  label(3761, "hw: BMG");
  const auto t = triage("ElectraForQuestionAnswering");
  EXPECT_EQ(t.state, "acknowledged");
  EXPECT_EQ(t.issue, "intel/torch-xpu-ops#3761");
  EXPECT_EQ(t.updated_by, "tracker");
  EXPECT_NE(t.reason.find("intel/torch-xpu-ops#3761"), std::string::npos);
  EXPECT_EQ(triage("BertForMaskedLM").state, "new");  // not named
  auto acked = schema::list_triage(store_->db(), "BMG", "acknowledged");
  ASSERT_TRUE(acked);
  ASSERT_EQ(acked->size(), 1u);
  EXPECT_EQ((*acked)[0].model, "ElectraForQuestionAnswering");
  auto fresh = schema::list_triage(store_->db(), "BMG", "new");
  ASSERT_TRUE(fresh);
  ASSERT_EQ(fresh->size(), 1u);
  EXPECT_EQ((*fresh)[0].model, "BertForMaskedLM");
}

TEST_F(TrackerTriage, AnIssueAboutOtherHardwareDoesNot) {
  label(3761, "hw: PVC");
  EXPECT_EQ(triage("ElectraForQuestionAnswering").state, "new");
}

TEST_F(TrackerTriage, ClosingTheIssueReturnsTheBacklogState) {
  label(3761, "");
  EXPECT_EQ(triage("ElectraForQuestionAnswering").state, "acknowledged");
  auto tx = schema::Transaction::begin(store_->db());
  ASSERT_TRUE(tx);
  ASSERT_TRUE(schema::clear_issue_cases(store_->db(), "intel/torch-xpu-ops", 3761));
  ASSERT_TRUE(tx->commit());
  EXPECT_EQ(triage("ElectraForQuestionAnswering").state, "new");
}

TEST_F(TrackerTriage, APersonWinsAndIsNeverOverwritten) {
  label(3761, "hw: BMG");
  auto wont = decide("wontfix", "", "a known limitation");
  ASSERT_TRUE(wont) << wont.error().message;
  EXPECT_EQ(wont->state, "wontfix");
  label(3761, "hw: BMG");  // relabeled: still the person's
  EXPECT_EQ(triage("ElectraForQuestionAnswering").state, "wontfix");
  // Back to "new" by a person: new it stays, the open issue notwithstanding.
  ASSERT_TRUE(decide("new"));
  const auto t = triage("ElectraForQuestionAnswering");
  EXPECT_EQ(t.state, "new");
  EXPECT_EQ(t.updated_by, "auto");
  auto history = schema::triage_history(
      store_->db(), {"BMG", "huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering", ""});
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 2u);
  EXPECT_EQ((*history)[0].from_state, "acknowledged");  // what the tracker had made it
}

TEST_F(TrackerTriage, ExplainListsTheOpenIssues) {
  label(3761, "hw: BMG");
  const schema::TriageKey key{"bmg", "huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering", ""};
  auto issues = server::case_issues_json(store_->db(), key);
  ASSERT_TRUE(issues) << issues.error().message;
  ASSERT_EQ(issues->size(), 1u);
  EXPECT_EQ((*issues)[0]["ref"], "intel/torch-xpu-ops#3761");
  EXPECT_EQ((*issues)[0]["url"], "https://github.com/intel/torch-xpu-ops/issues/3761");
  auto index = server::case_issue_index(store_->db(), "BMG");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->size(), 1u);
  // The backlog's lookup: the case's issues whatever its config, none for a case the issue does not name.
  const auto listed = server::issues_of(*index, "huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering");
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["number"], 3761);
  EXPECT_EQ(listed[0]["ref"], "intel/torch-xpu-ops#3761");
  EXPECT_EQ(server::issues_of(*index, "huggingface", "float16", "inference", "ElectraForQuestionAnswering"),
            nlohmann::json::array());
  auto explained = server::explain(*store_, key, 1.0);
  ASSERT_TRUE(explained) << explained.error().message;
  EXPECT_EQ((*explained)["triage"]["state"], "acknowledged");
  EXPECT_EQ((*explained)["triage"]["issue"], "intel/torch-xpu-ops#3761");
}

}  // namespace
}  // namespace perftriage
