// Data-backed labeling: the seed issue's cases found in the seed fixture run ingested into an in-memory store.
#include <gtest/gtest.h>

#include "analyzers/labeler/labeler.hpp"
#include "schema/artifact_store.hpp"
#include "schema/store.hpp"
#include "server/app/ingest_service.hpp"
#include "server/app/label_evidence.hpp"
#include "tests/support/files.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

namespace lb = analyzers::labeler;

const char* kSeedTitle = "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)";

class LabelEvidence : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = testing_support::open_test_store();
    ASSERT_TRUE(s.ok()) << s.error().message;
    store_.emplace(std::move(*s));
    auto t = lb::load_taxonomy("torch-xpu-ops");
    ASSERT_TRUE(t.ok());
    taxonomy_ = *t;
    issue_ = {kSeedTitle,
              testing::read_bytes(testing::fixture("labeler/seed_3761_body.md")),
              {},
              "intel/torch-xpu-ops",
              3761};
  }
  void ingest(const std::string& platform, const std::string& run, const std::string& created_at) {
    UploadMeta meta;
    meta.platform = platform;
    meta.run = run;
    meta.created_at = created_at;
    auto r = ingest_files(*store_, meta, testing::read_tree(testing::fixture("seed_bmg_2.12")));
    ASSERT_TRUE(r.ok()) << r.error().message;
  }
  std::string reason(const lb::LabelResult& r, const std::string& axis, const std::string& value) {
    for (const auto& a : r.axes)
      if (a.axis == axis && a.value == value) return a.reason;
    return "";
  }
  lb::ParsedCase electra() {
    lb::ParsedCase c;
    c.suite = "huggingface";
    c.dtype = "bfloat16";
    c.mode = "inference";
    c.model = "ElectraForQuestionAnswering";
    c.e2e = true;
    return c;
  }

  std::optional<schema::Store> store_;
  lb::Taxonomy taxonomy_;
  lb::IssueInput issue_;
};

TEST_F(LabelEvidence, SeedReasonCitesTheMeasuredSpeedup) {
  ingest("BMG", "bmg-release-2.12", "2026-01-10T00:00:00Z");
  auto r = label_with_evidence(*store_, issue_, taxonomy_);
  const auto perf = reason(r, "symptom", "performance");
  EXPECT_NE(perf.find("measured speedup 0.662"), std::string::npos) << perf;
  EXPECT_NE(perf.find("speedup 0.662224"), std::string::npos) << perf;
  EXPECT_NE(perf.find("bmg-release-2.12"), std::string::npos) << perf;
  std::vector<std::string> labels = r.labels;
  std::sort(labels.begin(), labels.end());
  EXPECT_EQ(labels, (std::vector<std::string>{"dtype: bfloat16", "hw: BMG", "inference", "module: inductor",
                                              "performance", "test: e2e"}));
  EXPECT_EQ(r.cases.size(), 11u);
}

TEST_F(LabelEvidence, IssuePlatformIsTheHwKey) {
  auto r = lb::label_issue(issue_, taxonomy_);
  EXPECT_EQ(issue_platform(r, taxonomy_), "BMG");
}

TEST_F(LabelEvidence, AnotherPlatformsRunIsNotEvidence) {
  ingest("PVC", "pvc-2.12", "2026-01-10T00:00:00Z");
  auto r = label_with_evidence(*store_, issue_, taxonomy_);
  EXPECT_EQ(lb::to_json(r), lb::to_json(lb::label_issue(issue_, taxonomy_)));
  EXPECT_FALSE(make_evidence_lookup(*store_, "BMG")(electra()).has_value());
  EXPECT_TRUE(make_evidence_lookup(*store_, "")(electra()).has_value());
}

TEST_F(LabelEvidence, TheLatestRunOfThePlatformWinsAndThePreviousIsTheBaseline) {
  ingest("BMG", "bmg-2.11", "2025-10-01T00:00:00Z");
  ingest("BMG", "bmg-2.12", "2026-01-10T00:00:00Z");
  auto ev = make_evidence_lookup(*store_, "BMG")(electra());
  ASSERT_TRUE(ev.has_value());
  EXPECT_NEAR(*ev->speedup, 0.662224, 1e-9);
  EXPECT_NE(ev->source.find("run bmg-2.12"), std::string::npos) << ev->source;
  EXPECT_NE(ev->source.find("baseline bmg-2.11"), std::string::npos) << ev->source;
  ASSERT_TRUE(ev->inductor_ratio.has_value());
  EXPECT_NEAR(*ev->inductor_ratio, 1.0, 1e-9);  // the same numbers twice
}

TEST_F(LabelEvidence, AFailedRowIsNotASpeedMeasurement) {
  ingest("BMG", "bmg-2.12", "2026-01-10T00:00:00Z");
  auto& db = store_->db();
  ASSERT_TRUE(db.exec("UPDATE result_rows SET speedup = 0, speedup_text = '0.000000' "
                      "WHERE case_id IN (SELECT id FROM cases WHERE model = 'ElectraForQuestionAnswering')")
                  .ok());
  EXPECT_FALSE(make_evidence_lookup(*store_, "BMG")(electra()).has_value());
}

TEST_F(LabelEvidence, UnitTestCasesAreNotLookedUp) {
  ingest("BMG", "bmg-2.12", "2026-01-10T00:00:00Z");
  lb::ParsedCase c;
  c.test_id = "test/xpu/test_ops_xpu.py::TestCommonXPU::test_compare_cpu_add_xpu_float32";
  EXPECT_FALSE(make_evidence_lookup(*store_, "BMG")(c).has_value());
}

TEST_F(LabelEvidence, ClassifierVerdictsFromTheArtifactsTable) {
  ingest("BMG", "bmg-2.12", "2026-01-10T00:00:00Z");
  auto& db = store_->db();
  auto run = schema::find_run(db, "bmg-2.12");
  ASSERT_TRUE(run.ok() && *run);
  // The artifact's classify result, as the trace classifiers store it; its config is the case's, any of them.
  schema::NewArtifact a;
  a.run_id = (*run)->id;
  a.case_ref = {"huggingface", "bfloat16", "inference", "ElectraForQuestionAnswering", "cudagraphs"};
  a.name = "t.json";
  a.role = "trace";
  a.kind = "kineto";
  a.sha256 = "abc";
  a.bytes = "{}";
  a.result_json = R"({"kind":"kineto","findings":[{"classifier":"attention","verdict":"math_fallback"},)"
                  R"({"classifier":"host_bound","verdict":"no"}]})";
  ASSERT_TRUE(schema::insert_artifact(db, a).ok());
  auto ev = make_evidence_lookup(*store_, "BMG")(electra());
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->verdicts, std::vector<std::string>{"math fallback"});
  auto r = label_with_evidence(*store_, issue_, taxonomy_);
  EXPECT_NE(reason(r, "symptom", "performance").find("classifier: math fallback"), std::string::npos);
}

TEST_F(LabelEvidence, ThePlatformIsLookedUpInAnySpelling) {
  ingest("BMG", "bmg-2.12", "2026-01-10T00:00:00Z");
  auto ev = make_evidence_lookup(*store_, "bmg")(electra());
  ASSERT_TRUE(ev.has_value());
  EXPECT_EQ(ev->source.rfind("BMG run bmg-2.12: speedup ", 0), 0u) << ev->source;
}

TEST_F(LabelEvidence, NoArtifactsNoVerdicts) {
  ingest("BMG", "bmg-2.12", "2026-01-10T00:00:00Z");
  auto ev = make_evidence_lookup(*store_, "BMG")(electra());
  ASSERT_TRUE(ev.has_value());
  EXPECT_TRUE(ev->verdicts.empty());
}

}  // namespace
}  // namespace perftriage::server
