// Data-backed labels: an EvidenceLookup (the database, later) makes reasons cite measurements and verdicts, and
// need_split can come from verdicts that differ between cases.
#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

const char* kSeedTitle = "[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)";

std::string reason_of(const LabelResult& r, const std::string& axis, const std::string& value) {
  for (const auto& a : r.axes)
    if (a.axis == axis && a.value == value) return a.reason;
  return "";
}

TEST(LabelerEvidence, ReasonsCiteMeasurementsAndVerdictsSplitTheIssue) {
  int calls = 0;
  EvidenceLookup lookup = [&](const ParsedCase& c) -> std::optional<CaseEvidence> {
    ++calls;
    if (c.suite == "huggingface") return CaseEvidence{0.655, 0.98, 1.0, {"math fallback"}, "bmg-2.12-release"};
    if (c.suite == "torchbench") return CaseEvidence{0.67, 1.0, 1.0, {"host-bound"}, "bmg-2.12-release"};
    return std::nullopt;
  };
  IssueInput in{kSeedTitle, read_fixture("labeler/seed_3761_body.txt"), {}, "intel/torch-xpu-ops", 3761};
  auto r = label_issue(in, xpu_taxonomy(), lookup);
  EXPECT_EQ(calls, 11);
  auto perf = reason_of(r, "symptom", "performance");
  EXPECT_NE(perf.find("measured speedup 0.655"), std::string::npos) << perf;
  EXPECT_NE(perf.find("classifier: math fallback"), std::string::npos) << perf;
  EXPECT_NE(perf.find("bmg-2.12-release"), std::string::npos) << perf;
  EXPECT_TRUE(r.need_split);
  auto split = reason_of(r, "triage", "need_split");
  EXPECT_NE(split.find("math fallback"), std::string::npos) << split;
  EXPECT_NE(split.find("host-bound"), std::string::npos) << split;
  EXPECT_TRUE(has_label(r, "need_split"));
  EXPECT_NE(r.root_cause.find("math fallback"), std::string::npos) << r.root_cause;
}

TEST(LabelerEvidence, SameVerdictEverywhereIsOneCause) {
  EvidenceLookup lookup = [](const ParsedCase&) -> std::optional<CaseEvidence> {
    return CaseEvidence{0.7, std::nullopt, std::nullopt, {"graph breaks"}, "db"};
  };
  auto r = label_issue({kSeedTitle, read_fixture("labeler/seed_3761_body.txt"), {}, "", 0}, xpu_taxonomy(), lookup);
  EXPECT_FALSE(r.need_split);
  EXPECT_EQ(sorted(r.labels), (std::vector<std::string>{"dtype: bfloat16", "hw: BMG", "inference", "module: inductor",
                                                        "performance", "test: e2e"}));
}

TEST(LabelerEvidence, RatiosSeparateInductorAndEagerPaths) {
  const std::string body =
      "```\npython benchmarks/dynamo/huggingface.py --performance --bfloat16 --inference --only BertForMaskedLM\n"
      "python benchmarks/dynamo/huggingface.py --performance --bfloat16 --inference --only T5Small\n```\n";
  EvidenceLookup lookup = [](const ParsedCase& c) -> std::optional<CaseEvidence> {
    if (c.model == "BertForMaskedLM") return CaseEvidence{0.8, 0.85, 1.0, {}, "db"};  // inductor path
    return CaseEvidence{1.2, 1.0, 0.8, {}, "db"};                                     // eager path
  };
  auto r = label_issue({"[PVC] 2.13 nightly numbers", body, {}, "", 0}, xpu_taxonomy(), lookup);
  ASSERT_EQ(r.cases.size(), 2u);
  EXPECT_TRUE(r.need_split);
  EXPECT_NE(reason_of(r, "triage", "need_split").find("eager-path"), std::string::npos);
  // The text alone says nothing about speed; the data does.
  EXPECT_TRUE(has_label(r, "performance"));
  EXPECT_TRUE(has_label(r, "regression"));
  EXPECT_TRUE(has_label(r, "module: inductor"));
  EXPECT_NE(reason_of(r, "symptom", "regression").find("inductor ratio 0.850"), std::string::npos);
  EXPECT_EQ(value_of(r, "priority"), "Urgent");
}

TEST(LabelerEvidence, NoEvidenceNoChange) {
  EvidenceLookup none = [](const ParsedCase&) -> std::optional<CaseEvidence> { return std::nullopt; };
  auto with = label_issue({kSeedTitle, read_fixture("labeler/seed_3761_body.txt"), {}, "", 0}, xpu_taxonomy(), none);
  auto without = label_issue({kSeedTitle, read_fixture("labeler/seed_3761_body.txt"), {}, "", 0}, xpu_taxonomy());
  EXPECT_EQ(to_json(with), to_json(without));
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
