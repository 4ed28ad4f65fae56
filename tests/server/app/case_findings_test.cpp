// server/app/case_findings: the combined explanation, the markdown findings column and findings_for_run.
#include <gtest/gtest.h>

#include "analyzers/flags/slow_table.hpp"
#include "schema/artifact_store.hpp"
#include "schema/blob_codec.hpp"
#include "server/app/case_findings.hpp"
#include "tests/support/test_db.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

SourcedFinding finding(const std::string& source, const std::string& classifier, const std::string& verdict) {
  return {source, {{"classifier", classifier}, {"verdict", verdict}, {"evidence", classifier + " evidence"}}};
}

TEST(ExplainCase, PositiveVerdictsAreTheCauses) {
  auto e = explain_case({finding("artifact 1", "attention", "math_fallback"), finding("artifact 1", "host_bound", "no"),
                         finding("performance row", "graph_breaks", "no")});
  EXPECT_EQ(e["verdict"], "explained");
  ASSERT_EQ(e["causes"].size(), 1u);
  EXPECT_EQ(e["causes"][0]["classifier"], "attention");
  EXPECT_EQ(e["causes"][0]["verdict"], "math_fallback");
  EXPECT_EQ(e["causes"][0]["source"], "artifact 1");
  EXPECT_EQ(e["causes"][0]["evidence"], "attention evidence");
  EXPECT_EQ(e["text"], "attention: math_fallback");
}

TEST(ExplainCase, AllNoOrNoneIsUnexplained) {
  auto e = explain_case(
      {finding("a", "attention", "none"), finding("a", "host_bound", "no"), finding("row", "graph_breaks", "no")});
  EXPECT_EQ(e["verdict"], "unexplained");
  EXPECT_TRUE(e["causes"].empty());
  EXPECT_TRUE(e["unknown"].empty());
  EXPECT_EQ(e["text"], "unexplained");
}

TEST(ExplainCase, FusedAttentionExplainsNothing) {
  auto e = explain_case({finding("a", "attention", "fused"), finding("a", "host_bound", "no")});
  EXPECT_EQ(e["verdict"], "unexplained");
  EXPECT_TRUE(e["causes"].empty());
}

TEST(ExplainCase, UnknownIsNeverACause) {
  auto e = explain_case({finding("a", "attention", "math_fallback"), finding("a", "host_bound", "unknown")});
  EXPECT_EQ(e["verdict"], "explained");
  ASSERT_EQ(e["causes"].size(), 1u);
  EXPECT_EQ(e["causes"][0]["classifier"], "attention");
  EXPECT_EQ(e["unknown"], json::array({"host_bound"}));

  auto only_unknown = explain_case({finding("row", "graph_breaks", "unknown")});
  EXPECT_EQ(only_unknown["verdict"], "inconclusive");
  EXPECT_EQ(only_unknown["unknown"], json::array({"graph_breaks"}));
  EXPECT_EQ(only_unknown["text"], "inconclusive: no definite verdict for graph_breaks");
}

TEST(ExplainCase, ATraceGraphBreaksUnknownDoesNotHideTheRowsNo) {
  auto e = explain_case({finding("artifact 1", "attention", "none"), finding("artifact 1", "host_bound", "no"),
                         finding("artifact 1", "graph_breaks", "unknown"), finding("row", "graph_breaks", "no")});
  EXPECT_EQ(e["verdict"], "unexplained");
  EXPECT_TRUE(e["unknown"].empty());
}

TEST(ExplainCase, RepeatedCauseIsListedPerSourceButNamedOnceInTheText) {
  auto e =
      explain_case({finding("performance row", "graph_breaks", "yes"), finding("accuracy row", "graph_breaks", "yes")});
  EXPECT_EQ(e["causes"].size(), 2u);
  EXPECT_EQ(e["text"], "graph_breaks: yes");
}

TEST(ExplainCase, NoFindingsIsInconclusive) {
  auto e = explain_case({});
  EXPECT_EQ(e["verdict"], "inconclusive");
  EXPECT_EQ(e["text"], "no findings");
}

FindingSummary summary(std::int64_t id, const std::string& role, const std::string& classifier,
                       const std::string& verdict) {
  return {id, "trace" + std::to_string(id) + ".json", role, classifier, verdict, "evidence"};
}

TEST(FindingsCell, OneArtifactListsItsDefiniteVerdicts) {
  EXPECT_EQ(findings_cell({summary(1, "", "attention", "math_fallback"), summary(1, "", "host_bound", "no"),
                           summary(1, "", "graph_breaks", "unknown")}),
            "attention: math_fallback; host_bound: no");
}

TEST(FindingsCell, SeveralArtifactsAreLabelledByRoleOrName) {
  EXPECT_EQ(findings_cell({summary(1, "eager", "attention", "math_fallback"), summary(2, "", "attention", "fused")}),
            "[eager] attention: math_fallback / [trace2.json] attention: fused");
}

TEST(FindingsCell, EmptyWithoutFindingsAndPipesEscaped) {
  EXPECT_EQ(findings_cell({}), "");
  EXPECT_EQ(findings_cell({summary(1, "a|b", "x", "yes"), summary(2, "", "y", "no")}),
            "[a\\|b] x: yes / [trace2.json] y: no");
}

model::ResultRecord row(const std::string& model, const std::string& speedup) {
  model::ResultRecord r;
  r.suite = "huggingface";
  r.dtype = "bfloat16";
  r.mode = "inference";
  r.model = model;
  r.batch_size = 8;
  r.speedup = std::stod(speedup);
  r.speedup_text = speedup;
  r.source = "a.csv";
  return r;
}

TEST(SlowTableWithFindings, AddsALastColumnAndKeepsEveryOtherByte) {
  const std::vector<model::ResultRecord> rows{row("A", "0.5"), row("B", "0.7")};
  // The findings column of `slow --with-findings` and the report: findings_cell per row, in the one slow table.
  const analyzers::ExtraColumn column{
      "findings", {findings_cell({summary(3, "", "attention", "math_fallback")}), findings_cell({})}};
  const std::string md = analyzers::slow_table_markdown(rows, &column);
  EXPECT_EQ(md,
            "| suite | dtype | mode | model | batch_size | speedup | source csv | findings |\n"
            "|---|---|---|---|---:|---:|---|---|\n"
            "| huggingface | bfloat16 | inference | A | 8 | 0.5 | a.csv | attention: math_fallback |\n"
            "| huggingface | bfloat16 | inference | B | 8 | 0.7 | a.csv | |\n");
  // the plain table is a prefix of every line
  const std::string plain = analyzers::slow_table_markdown(rows);
  std::size_t a = 0, b = 0;
  while (a < plain.size()) {
    const auto ea = plain.find('\n', a);
    const auto eb = md.find('\n', b);
    EXPECT_EQ(md.substr(b, ea - a), plain.substr(a, ea - a));
    a = ea + 1;
    b = eb + 1;
  }
}

TEST(FindingsForRun, GroupsFindingsByCaseAndMatchesRowsOfTheirRun) {
  auto s = testing_support::open_test_store();
  ASSERT_TRUE(s);
  auto& db = s->db();
  model::RunMeta meta;
  meta.key = "r1";
  meta.platform = "BMG";
  auto run_id = schema::ensure_run(s->db(), meta);
  ASSERT_TRUE(run_id);
  schema::NewArtifact a;
  a.run_id = *run_id;
  a.case_ref = {"huggingface", "bfloat16", "inference", "A", ""};
  a.name = "t.json";
  a.role = "compiled";
  a.kind = "kineto";
  a.bytes = "bytes";
  a.sha256 = schema::sha256_hex(a.bytes);
  a.result_json = R"({"census":{},"findings":[{"classifier":"attention","verdict":"math_fallback","evidence":"6 )"
                  R"(micro_sdpa"},{"classifier":"host_bound","verdict":"no","evidence":"busy 0.9"}]})";
  auto id = schema::insert_artifact(db, a);
  ASSERT_TRUE(id);

  auto by_case = findings_for_run(db, *run_id);
  ASSERT_TRUE(by_case);
  ASSERT_EQ(by_case->size(), 1u);
  const auto& list = by_case->at(CaseKey{"huggingface", "bfloat16", "inference", "A", ""});
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].artifact_id, *id);
  EXPECT_EQ(list[0].classifier, "attention");
  EXPECT_EQ(list[0].verdict, "math_fallback");
  EXPECT_EQ(list[0].evidence, "6 micro_sdpa");
  EXPECT_EQ(list[0].role, "compiled");
  EXPECT_EQ(list[1].verdict, "no");

  model::RunRecord run{*run_id, meta};
  auto rows = std::vector<model::ResultRecord>{row("A", "0.5"), row("B", "0.6"), row("A", "0.5")};
  rows[0].run_key = "r1";
  rows[1].run_key = "r1";
  rows[2].run_key = "other-run";
  auto per_row = findings_for_rows(db, {run}, rows);
  ASSERT_TRUE(per_row);
  ASSERT_EQ(per_row->size(), 3u);
  EXPECT_EQ((*per_row)[0].size(), 2u);
  EXPECT_TRUE((*per_row)[1].empty());
  EXPECT_TRUE((*per_row)[2].empty());

  auto j = findings_json((*per_row)[0]);
  EXPECT_EQ(j[0]["artifact_id"], *id);
  EXPECT_EQ(j[0]["classifier"], "attention");
  EXPECT_EQ(j[0]["verdict"], "math_fallback");
  EXPECT_EQ(j[0]["evidence"], "6 micro_sdpa");
}

}  // namespace
}  // namespace perftriage::server
