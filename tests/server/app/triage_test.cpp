// Triage state per case (schema/triage_store.hpp) through real ingests: derived states follow the backlog, a
// person's decision stays, ingest moves an acknowledged case to fixed and a fixed one to regressed, and every change
// is in the history with who made it.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <string>

#include "schema/triage_store.hpp"
#include "server/app/ingest_service.hpp"
#include "server/app/slow_report.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage {
namespace {

constexpr const char* kHeader =
    "dev,name,batch_size,speedup,abs_latency,compilation_latency,compression_ratio,eager_peak_mem,dynamo_peak_mem,"
    "calls_captured,unique_graphs,graph_breaks,unique_graph_breaks,autograd_captures,autograd_compiles,"
    "cudagraph_skips\n";

class Triage : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s) << s.error().message;
    store_.emplace(std::move(*s));
  }
  // One nightly of BMG with these models' speedups.
  void nightly(int day, const std::vector<std::pair<std::string, double>>& speedups) {
    std::string csv = kHeader;
    for (const auto& [model, speedup] : speedups) {
      csv += fmt::format("xpu,{},8,{:.6f},10.0,1,0,0,0,1,1,0,0,0,0,0\n", model, speedup);
    }
    server::UploadMeta meta;
    meta.run = fmt::format("n{:02d}", day);
    meta.platform = "BMG";
    meta.created_at = fmt::format("2026-01-{:02d}T00:00:00Z", day);
    meta.axes = {"huggingface", "bfloat16", "inference", "", "", ""};
    auto summary = server::ingest_files(*store_, meta, {{"perf.csv", csv}});
    ASSERT_TRUE(summary) << summary.error().message;
  }
  std::string state_of(const std::string& model) {
    auto c = schema::find_triage(store_->db(), key(model));
    EXPECT_TRUE(c) << c.error().message;
    return c && *c ? (*c)->state + "@" + (*c)->since_run : "absent";
  }
  static schema::TriageKey key(const std::string& model) {
    return {"bmg", "huggingface", "bfloat16", "inference", model, ""};  // any spelling of the platform
  }
  Result<schema::TriageCase> decide(const std::string& model, const char* state, const char* issue = "",
                                    const char* reason = "") {
    auto tx = schema::Transaction::begin(store_->db());
    EXPECT_TRUE(tx);
    auto c = schema::set_triage(store_->db(), key(model), state, issue, reason, "alice");
    if (c) {
      EXPECT_TRUE(tx->commit());
    }
    return c;
  }
  std::optional<schema::Store> store_;
};

TEST_F(Triage, DerivedStatesFollowTheBacklog) {
  nightly(1, {{"A", 0.8}, {"B", 0.9}, {"C", 1.2}});
  EXPECT_EQ(state_of("A"), "new@n01");
  EXPECT_EQ(state_of("C"), "absent");  // never slow: not a triage case
  nightly(2, {{"A", 1.1}, {"B", 0.95}, {"C", 1.2}});
  EXPECT_EQ(state_of("A"), "fixed@n02");
  EXPECT_EQ(state_of("B"), "new@n01");
  nightly(3, {{"A", 0.7}, {"B", 0.95}});
  EXPECT_EQ(state_of("A"), "regressed@n03");
  auto slow = schema::list_triage(store_->db(), "BMG");
  ASSERT_TRUE(slow);
  ASSERT_EQ(slow->size(), 2u);
  EXPECT_EQ((*slow)[0].model, "A");
  EXPECT_EQ((*slow)[0].updated_by, "auto");
  auto regressed = schema::list_triage(store_->db(), "BMG", "regressed");
  ASSERT_TRUE(regressed);
  ASSERT_EQ(regressed->size(), 1u);
  EXPECT_EQ(regressed->front().model, "A");
}

TEST_F(Triage, ADecisionStaysAndIngestMovesItWhenTheCaseChanges) {
  nightly(1, {{"A", 0.8}, {"B", 0.9}});
  auto acked = decide("A", "acknowledged", "intel/torch-xpu-ops#3761");
  ASSERT_TRUE(acked) << acked.error().message;
  EXPECT_EQ(acked->state, "acknowledged");
  EXPECT_EQ(acked->issue, "intel/torch-xpu-ops#3761");
  EXPECT_EQ(acked->updated_by, "alice");
  ASSERT_TRUE(decide("B", "expected", "", "math SDPA on this driver"));
  nightly(2, {{"A", 0.85}, {"B", 0.9}});
  EXPECT_EQ(state_of("A"), "acknowledged@n01");  // still slow: the decision holds
  nightly(3, {{"A", 1.05}, {"B", 1.2}});
  EXPECT_EQ(state_of("A"), "fixed@n03");     // auto
  EXPECT_EQ(state_of("B"), "expected@n01");  // a known limitation stays until a person moves it
  nightly(4, {{"A", 0.6}, {"B", 1.2}});
  EXPECT_EQ(state_of("A"), "regressed@n04");
  auto history = schema::triage_history(store_->db(), key("A"));
  ASSERT_TRUE(history);
  ASSERT_EQ(history->size(), 3u);
  EXPECT_EQ((*history)[0].from_state, "new");
  EXPECT_EQ((*history)[0].state, "acknowledged");
  EXPECT_EQ((*history)[0].who, "alice");
  EXPECT_EQ((*history)[1].state, "fixed");
  EXPECT_EQ((*history)[1].who, "auto");
  EXPECT_EQ((*history)[1].run, "n03");
  EXPECT_EQ((*history)[2].from_state, "fixed");
  EXPECT_EQ((*history)[2].state, "regressed");
  // "new" drops the decision: back to what the backlog says.
  ASSERT_TRUE(decide("A", "new"));
  EXPECT_EQ(state_of("A"), "regressed@n04");
}

TEST_F(Triage, TheReportGroupsByStateAndListsKnownLimitationsApart) {
  nightly(1, {{"A", 0.8}, {"B", 0.9}, {"C", 0.7}});
  auto plain = server::slow_report(*store_, "n01", 1.0);
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->find("## Triage"), std::string::npos);  // nothing decided: the seed's shape as it is
  ASSERT_TRUE(decide("A", "acknowledged", "intel/torch-xpu-ops#3761"));
  ASSERT_TRUE(decide("B", "expected", "", "math SDPA on this driver"));
  auto report = server::slow_report(*store_, "n01", 1.0);
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_NE(report->find("contain 2 cases"), std::string::npos) << *report;  // B left the table
  EXPECT_NE(report->find("- acknowledged (1): huggingface bfloat16 inference A (intel/torch-xpu-ops#3761)"),
            std::string::npos)
      << *report;
  EXPECT_NE(report->find("- new (1): huggingface bfloat16 inference C"), std::string::npos) << *report;
  EXPECT_NE(report->find("## Known limitations (expected / wontfix)\n\n- huggingface bfloat16 inference B: expected "
                         "(math SDPA on this driver)"),
            std::string::npos)
      << *report;
}

TEST_F(Triage, RefusesWhatIsNotADecisionOrNotASlowCase) {
  nightly(1, {{"A", 0.8}, {"C", 1.3}});
  auto fixed = decide("A", "fixed");
  ASSERT_FALSE(fixed);
  EXPECT_EQ(fixed.error().code, "bad_state");
  auto never_slow = decide("C", "wontfix");
  ASSERT_FALSE(never_slow);
  EXPECT_EQ(never_slow.error().kind, ErrorKind::not_found);
  auto unknown = decide("Z", "wontfix");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, "not_slow");
  auto no_reason = decide("A", "expected");
  ASSERT_FALSE(no_reason);
  EXPECT_EQ(no_reason.error().code, "missing_reason");
  for (const char* ref : {"torch-xpu-ops#1", "a/b#0", "a/b#", "a/b/c#1", "a/b#1x", "../x#1", "a/..#1"}) {
    auto bad = decide("A", "acknowledged", ref);
    ASSERT_FALSE(bad) << ref;
    EXPECT_EQ(bad.error().code, "bad_issue") << ref;
  }
  EXPECT_EQ(state_of("A"), "new@n01");
  auto history = schema::triage_history(store_->db(), key("A"));
  ASSERT_TRUE(history);
  EXPECT_TRUE(history->empty());  // nothing refused was recorded
}

}  // namespace
}  // namespace perftriage
