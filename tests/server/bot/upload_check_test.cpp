// The verdict on an upload's commit, without a server: which uploads ask for one, and what the check says for a
// comparison built case by case.
#include <gtest/gtest.h>

#include "server/bot/upload_check.hpp"

namespace perftriage::server {
namespace {

using analyzers::compare::CaseComparison;
using analyzers::compare::Change;
using analyzers::compare::Verdict;

UploadMeta meta(std::string repo, std::string commit, std::string pr = "") {
  UploadMeta m;
  m.repo = std::move(repo);
  m.commit = std::move(commit);
  m.pull_request = std::move(pr);
  return m;
}

TEST(UploadCheckRequest, OnlyAnUploadNamingARepositoryAndACommitAsksForOne) {
  auto none = upload_check_request(meta("", "abc1234"));
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  auto ok = upload_check_request(meta("intel/torch-xpu-ops", "0123456789abcdef0123456789abcdef01234567", "12"));
  ASSERT_TRUE(ok);
  ASSERT_TRUE(*ok);
  EXPECT_EQ((*ok)->pull_request, 12);
  EXPECT_EQ((*ok)->baseline, "previous");
  struct Bad {
    UploadMeta m;
    std::string field;
  };
  for (const auto& [m, field] : std::vector<Bad>{{meta("intel/torch-xpu-ops", ""), "commit"},
                                                 {meta("intel/torch-xpu-ops", "ABC1234"), "commit"},  // git's is lower
                                                 {meta("intel/torch-xpu-ops", "abc12"), "commit"},
                                                 {meta("../x", "abc1234"), "repo"},
                                                 {meta("intel/torch-xpu-ops", "abc1234", "0"), "pr"},
                                                 {meta("intel/torch-xpu-ops", "abc1234", "12a"), "pr"},
                                                 {meta("", "abc1234", "12"), "pr"}}) {
    auto r = upload_check_request(m);
    ASSERT_FALSE(r) << m.repo << " " << m.commit << " " << m.pull_request;
    EXPECT_EQ(r.error().kind, ErrorKind::invalid_input);
    EXPECT_EQ(r.error().column, field) << r.error().message;
  }
}

CaseComparison case_of(std::string model, double base, double target, Verdict verdict, std::vector<Change> changes,
                       std::string severity = "") {
  CaseComparison c;
  c.key = {"huggingface", "float16", "inference", "", std::move(model)};
  c.base.present = c.target.present = true;
  c.base.speedup = base;
  c.target.speedup = target;
  c.target.batch_size = 8;
  c.verdict = verdict;
  c.changes = std::move(changes);
  c.severity = std::move(severity);
  c.inductor_ratio = target / base;
  c.eager_ratio = 1.0;
  return c;
}

Comparison comparison(std::vector<CaseComparison> cases) {
  Comparison c;
  c.base.meta.key = "bmg-1";
  c.target.meta.key = "bmg-2";
  c.target.meta.platform = "BMG";
  c.cases = std::move(cases);
  return c;
}

TEST(UploadCheckReport, ARegressionFailsTheCheckAndIsListedTheWorstFirst) {
  const auto c = comparison({
      case_of("T5Small", 1.3, 1.3, Verdict::unchanged, {}),
      case_of("Bert", 1.5, 1.25, Verdict::regression, {Change::speedup_dropped}, "yellow"),
      case_of("GPT2", 1.5, 0.8, Verdict::regression, {Change::newly_slower_than_eager}, "red"),
      case_of("Albert", 1.2, 1.5, Verdict::improvement, {Change::speedup_rose}),
  });
  const auto r = check_report(&c, "previous", "", "https://perf/#/compare?base=bmg-1&target=bmg-2");
  EXPECT_EQ(r.conclusion, "failure");
  EXPECT_EQ(r.regressions, 2);
  EXPECT_EQ(r.newly_slower, 1);
  EXPECT_EQ(r.improvements, 1);
  EXPECT_EQ(r.title, "2 regressions, 0 newly failing cases, 1 newly slower than eager against bmg-1");
  const auto gpt2 = r.summary.find("| GPT2 | 8 | 1.500000 | 0.800000 |");
  const auto bert = r.summary.find("| Bert | 8 | 1.500000 | 1.250000 |");
  ASSERT_NE(gpt2, std::string::npos) << r.summary;
  ASSERT_NE(bert, std::string::npos) << r.summary;
  EXPECT_LT(gpt2, bert);  // red first
  EXPECT_NE(r.summary.find("[Compare the runs](https://perf/#/compare?base=bmg-1&target=bmg-2)"), std::string::npos);
  EXPECT_EQ(r.summary.find("T5Small"), std::string::npos);
  EXPECT_EQ(r.summary.find("Albert"), std::string::npos);
}

TEST(UploadCheckReport, NoRegressionPassesNoBaselineIsNeutralAndLongTablesAreCut) {
  const auto fine = comparison({case_of("T5Small", 1.3, 1.3, Verdict::unchanged, {})});
  const auto r = check_report(&fine, "previous", "", "");
  EXPECT_EQ(r.conclusion, "success");
  EXPECT_EQ(r.title, "No regression against bmg-1");
  EXPECT_EQ(r.summary.find("Compare the runs"), std::string::npos);  // no public_url: no link

  const auto none = check_report(nullptr, "previous", "no run of BMG before bmg-1", "");
  EXPECT_EQ(none.conclusion, "neutral");
  EXPECT_NE(none.summary.find("no run of BMG before bmg-1"), std::string::npos);

  std::vector<CaseComparison> many;
  for (int i = 0; i < 40; ++i) {
    many.push_back(case_of("M" + std::to_string(i), 1.0, 0.5, Verdict::new_failed, {}));
  }
  const auto failing = comparison(std::move(many));
  const auto cut = check_report(&failing, "previous", "", "");
  EXPECT_EQ(cut.conclusion, "failure");
  EXPECT_EQ(cut.new_failed, 40);
  EXPECT_NE(cut.summary.find("15 more not shown."), std::string::npos);
  EXPECT_NE(cut.summary.find("newly failing"), std::string::npos);
  EXPECT_LT(cut.summary.size(), 65535u);  // GitHub's limit for output.summary
}

}  // namespace
}  // namespace perftriage::server
