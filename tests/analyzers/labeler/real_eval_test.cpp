// label-eval's scoring (analyzers/labeler/eval.hpp) on small hand-made sets: legacy spellings mapped, labels
// outside every axis ignored, confusions of single-valued axes, floors. The committed real set itself is scored by
// the CTest entry label_eval.
#include "analyzers/labeler/eval.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

const EvalScore* row(const std::vector<EvalScore>& rows, const std::string& name) {
  auto it = std::find_if(rows.begin(), rows.end(), [&](const EvalScore& s) { return s.name == name; });
  return it == rows.end() ? nullptr : &*it;
}

constexpr const char* kSet =
    R"({"repo":"intel/torch-xpu-ops","number":1,"title":"[E2E] timm_models float16 training accuracy fail_accuracy","labels":["module: ut","skipped","Accuracy"],"body":""})"
    "\n\n"
    R"({"repo":"intel/torch-xpu-ops","number":2,"title":"[BMG] test_ops_xpu.py::TestCommonXPU::test_foo_xpu_float32 fails","labels":["test: ut","hw: BMG"],"body":"FAILED test_ops_xpu.py::TestCommonXPU::test_foo_xpu_float32 - RuntimeError: boom"})"
    "\n";

TEST(LabelEval, ParsesTheSetAndRefusesABadLineNamingIt) {
  auto set = parse_eval_set(kSet, "x.jsonl");
  ASSERT_TRUE(set.ok()) << set.error().message;
  ASSERT_EQ(set.value().size(), 2u);
  EXPECT_EQ(set.value()[0].labels.size(), 3u);
  auto bad = parse_eval_set("{\"title\":\"a\",\"labels\":[]}\n{oops\n", "x.jsonl");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().line, 2);
  EXPECT_EQ(bad.error().file, "x.jsonl");
  EXPECT_FALSE(parse_eval_set("{\"title\":\"a\",\"labels\":\"x\"}", "x.jsonl").ok());
  EXPECT_FALSE(parse_eval_set("\n\n", "x.jsonl").ok());
}

TEST(LabelEval, MapsLegacySpellingsIgnoresOthersAndCountsConfusions) {
  auto set = parse_eval_set(kSet).value();
  const auto r = evaluate_labeler(set, xpu_taxonomy());
  EXPECT_EQ(r.issues, 2);
  EXPECT_EQ(r.legacy.at("module: ut"), "test: ut");
  EXPECT_EQ(r.ignored.at("skipped"), 1);
  // Issue 1 is an E2E issue the tracker marked with the old `module: ut`: test: e2e given where it says test: ut.
  ASSERT_FALSE(r.confusions.empty());
  const auto& c = r.confusions.front();
  EXPECT_EQ(c.axis, "test");
  EXPECT_EQ(c.given, "test: e2e");
  EXPECT_EQ(c.expected, "test: ut");
  EXPECT_EQ(c.issues, std::vector<std::int64_t>{1});
  EXPECT_EQ(r.wrong_single, 1);
  const auto* test = row(r.axes, "test");
  ASSERT_NE(test, nullptr);
  EXPECT_EQ(test->tp, 1);
  EXPECT_EQ(test->fp, 1);
  EXPECT_EQ(test->fn, 1);
  const auto* hw = row(r.labels, "hw: BMG");
  ASSERT_NE(hw, nullptr);
  EXPECT_EQ(hw->tp, 1);
  EXPECT_DOUBLE_EQ(hw->recall(), 1.0);
  const auto* acc = row(r.labels, "Accuracy");
  ASSERT_NE(acc, nullptr);
  EXPECT_EQ(acc->tp, 1);
  // Every given label the tracker left unset on its axis is a false positive of precision, not of p@set.
  for (const auto& s : r.axes) EXPECT_LE(s.precision(), s.precision_set()) << s.name;
  const auto text = render_text(r, true);
  EXPECT_NE(text.find("test: e2e given where the tracker says test: ut: 1 issue (#1)"), std::string::npos) << text;
  EXPECT_EQ(to_json(r)["confusions"][0]["issues"][0], 1);
}

TEST(LabelEval, TheTrackersLabelsNeverReachTheLabeler) {
  // Same issue, with and without labels on the tracker: the labeler's answer is the same.
  auto set = parse_eval_set(kSet).value();
  auto stripped = set;
  for (auto& is : stripped) is.labels.clear();
  const auto a = evaluate_labeler(set, xpu_taxonomy()), b = evaluate_labeler(stripped, xpu_taxonomy());
  ASSERT_EQ(a.per_issue.size(), b.per_issue.size());
  for (std::size_t i = 0; i < a.per_issue.size(); ++i) EXPECT_EQ(a.per_issue[i].given, b.per_issue[i].given);
}

TEST(LabelEval, FloorsFailBelowAndOnUnknownRows) {
  auto set = parse_eval_set(kSet).value();
  const auto r = evaluate_labeler(set, xpu_taxonomy());
  auto floors = nlohmann::json::parse(R"({"torch-xpu-ops": {"axes": {"hw": {"recall": 1.0}},
      "labels": {"Accuracy": {"precision": 0.5}}, "max_wrong_single_share": 0.5}})");
  EXPECT_TRUE(check_floors(r, floors).empty());
  floors["torch-xpu-ops"]["axes"]["test"] = {{"recall", 0.9}};
  floors["torch-xpu-ops"]["axes"]["no-such-axis"] = {{"recall", 0.1}};
  floors["torch-xpu-ops"]["max_wrong_single_share"] = 0.1;
  const auto fails = check_floors(r, floors);
  ASSERT_EQ(fails.size(), 3u);
  auto has = [&](const std::string& what) {
    return std::any_of(fails.begin(), fails.end(), [&](const std::string& f) { return f.find(what) != f.npos; });
  };
  EXPECT_TRUE(has("torch-xpu-ops: test recall 0.500 < floor 0.900"));
  EXPECT_TRUE(has("no-such-axis: no such row"));
  EXPECT_TRUE(has("wrong single-valued share 0.500 > max 0.100"));
  // Floors of another taxonomy do not apply.
  EXPECT_TRUE(check_floors(r, nlohmann::json::parse(R"({"pytorch": {"max_wrong_single_share": 0}})")).empty());
}

TEST(LabelEval, TaxonomyByRepository) {
  EXPECT_EQ(taxonomy_for_repo("intel/torch-xpu-ops").value().name, "torch-xpu-ops");
  EXPECT_EQ(taxonomy_for_repo("PyTorch/PyTorch").value().name, "pytorch");
  EXPECT_FALSE(taxonomy_for_repo("someone/else").ok());
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
