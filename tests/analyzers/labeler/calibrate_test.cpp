// The tiered labeler (model.hpp Calibration, labeler.hpp Layers::tiered): each value's probability that the tracker
// keeps it, fitted on held-out folds; applied only above the model's apply_at, suggested below; corrections from
// maintainers move it; the value groups that decide when the tracker's labels judge a value; the time split.
#include <gtest/gtest.h>

#include <algorithm>

#include "analyzers/labeler/eval.hpp"
#include "analyzers/labeler/model.hpp"
#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// 60 "slower than eager" issues the rules call performance. On the zorbix ones the tracker set `performance`; on the
// quokka ones it set `regression` instead: the symptom axis is set on every issue, so every rules value is judged,
// and it is right only on zorbix issues (made-up words the rules do not know; the model learns them).
std::vector<EvalIssue> judged_history() {
  std::vector<EvalIssue> h;
  const char* fillers[] = {"resnet50", "bert", "t5 small", "vit", "yolo"};
  for (int i = 0; i < 60; ++i) {
    EvalIssue is;
    is.repo = "intel/torch-xpu-ops";
    is.number = 3000 + i;
    const bool zorbix = i % 2 == 0;
    is.title = std::string(fillers[i % 5]) + " slower than eager on " + (zorbix ? "zorbix" : "quokka");
    is.body = std::string("speedup 0.61, inductor slower than eager\ncard ") + (zorbix ? "zorbix" : "quokka");
    is.labels = {zorbix ? "performance" : "regression"};
    h.push_back(std::move(is));
  }
  return h;
}

TrainSettings folds() {
  TrainSettings s;
  s.gate_folds = 5;
  return s;
}

const Calibration& calibration_of(const LabelModel& m, const std::string& label, Origin source) {
  const auto* c = m.calibrated(label, source);
  EXPECT_NE(c, nullptr) << label << " " << to_string(source);
  static const Calibration none;
  return c ? *c : none;
}

LabelResult tiered(const Taxonomy& t, const std::string& title, const std::string& body) {
  IssueInput in{title, body, {}, "intel/torch-xpu-ops", 0};
  return label_issue(in, t, {}, Layers::tiered);
}

TEST(Calibration, FittedOnHeldOutFoldsAsAStepFunctionOfTheModelsProbability) {
  TrainReport rep;
  const auto m = train_model(judged_history(), xpu_taxonomy(), folds(), &rep).value();
  const auto& c = calibration_of(m, "performance", Origin::rules);
  EXPECT_EQ(c.judged, 60);  // the rules gave it on every held-out issue, and every one of them judges it
  EXPECT_EQ(c.kept, 30);
  ASSERT_GE(c.steps.size(), 2u);
  for (std::size_t i = 1; i < c.steps.size(); ++i) {  // ascending p, and values never fall
    EXPECT_GE(c.steps[i].lo, c.steps[i - 1].hi);
    EXPECT_GE(c.steps[i].value, c.steps[i - 1].value);
  }
  EXPECT_LT(c.steps.front().value, 0.2);  // quokka: the tracker never kept it
  EXPECT_GE(c.steps.back().value, 0.9);   // zorbix: always
  ASSERT_TRUE(c.from(0.9).has_value());
  EXPECT_GT(*c.from(0.9), c.steps.front().hi);
  EXPECT_GE(c.at(*c.from(0.9)), 0.9 - 1e-9);
  EXPECT_EQ(rep.calibration.size(), m.calibration.size());
  // Without folds there is nothing held out: no calibration.
  EXPECT_TRUE(train_model(judged_history(), xpu_taxonomy(), {}).value().calibration.empty());
  // The same history gives the same model, calibration included.
  EXPECT_EQ(to_json(train_model(judged_history(), xpu_taxonomy(), folds()).value()).dump(), to_json(m).dump());
}

TEST(Calibration, BlocksAreFlatAndInterpolatedBetween) {
  Calibration c{"performance", Origin::rules, {{0.1, 0.2, 0.2}, {0.5, 0.6, 0.7}, {0.8, 0.9, 0.95}}, 10, 6};
  EXPECT_DOUBLE_EQ(c.at(0.0), 0.2);  // below every block: the first one's value
  EXPECT_DOUBLE_EQ(c.at(0.15), 0.2);
  EXPECT_DOUBLE_EQ(c.at(0.35), 0.45);  // half-way between 0.2 (at 0.2) and 0.7 (at 0.5)
  EXPECT_DOUBLE_EQ(c.at(0.55), 0.7);
  EXPECT_DOUBLE_EQ(c.at(0.7), 0.825);
  EXPECT_DOUBLE_EQ(c.at(1.0), 0.95);
  EXPECT_NEAR(*c.from(0.9), 0.76, 1e-12);  // where the line from 0.7 to 0.95 crosses 0.9
  EXPECT_NEAR(*c.from(0.45), 0.35, 1e-12);
  EXPECT_EQ(c.from(0.1), 0.0);  // the first block reaches it: any probability does
  EXPECT_FALSE(c.from(0.99).has_value());
  EXPECT_DOUBLE_EQ(Calibration{}.at(0.5), 0);
}

TEST(Calibration, TieredAppliesWhatIsNearlyCertainAndSuggestsTheRest) {
  Taxonomy t = xpu_taxonomy();
  t.model = std::make_shared<const LabelModel>(train_model(judged_history(), t, folds()).value());
  const std::string body = "speedup 0.58, inductor slower than eager";
  auto r = tiered(t, "vgg16 slower than eager on zorbix", body);
  EXPECT_TRUE(has(r.labels, "performance"));
  const auto row =
      std::find_if(r.axes.begin(), r.axes.end(), [](const AxisRow& a) { return a.value == "performance"; });
  ASSERT_NE(row, r.axes.end());
  ASSERT_TRUE(row->p.has_value());
  EXPECT_GE(*row->p, 0.9);
  const auto j = to_json(r);
  for (const auto& a : j["axes"])
    if (a["value"] == "performance") EXPECT_EQ(a["p"], *row->p);
  // The kind of issue the tracker does not keep it on: suggested, with its probability and the rules' reason.
  r = tiered(t, "vgg16 slower than eager on quokka", body);
  EXPECT_FALSE(has(r.labels, "performance"));
  const auto s =
      std::find_if(r.suggested.begin(), r.suggested.end(), [](const AxisRow& a) { return a.value == "performance"; });
  ASSERT_NE(s, r.suggested.end());
  EXPECT_EQ(s->layer, Origin::suggested);
  EXPECT_EQ(s->reason.rfind("Likely, p 0.", 0), 0u) << s->reason;
  EXPECT_NE(s->reason.find("(applied from 0.90)"), std::string::npos) << s->reason;
  EXPECT_NE(s->reason.find("slower than eager"), std::string::npos) << s->reason;  // the rules' own reason follows
  EXPECT_NE(
      render_comment({"vgg16 slower than eager on quokka", body, {}, "intel/torch-xpu-ops", 0}, r).find("Likely, p 0."),
      std::string::npos);
  // Both, the default, still applies it: tiers are the tiered layer's.
  IssueInput in{"vgg16 slower than eager on quokka", body, {}, "intel/torch-xpu-ops", 0};
  EXPECT_TRUE(has(label_issue(in, t, {}, Layers::both).labels, "performance"));
  // A value the maintainers set on the issue stays applied whatever its probability.
  in.labels = {"performance"};
  EXPECT_TRUE(has(label_issue(in, t, {}, Layers::tiered).labels, "performance"));
  EXPECT_EQ(layers_from_name("tiered"), Layers::tiered);
  EXPECT_EQ(layers_name(Layers::tiered), "tiered");
}

TEST(Calibration, AValueNeverProposedOnTheHistoryIsOnlySuggested) {
  Taxonomy t = xpu_taxonomy();
  t.model = std::make_shared<const LabelModel>(train_model(judged_history(), t, folds()).value());
  // hw: PVC: the rules name it, but no held-out issue of this history ever gave it.
  const auto r = tiered(t, "[PVC] crash in conv", "");
  EXPECT_FALSE(has(r.labels, "hw: PVC"));
  const auto s =
      std::find_if(r.suggested.begin(), r.suggested.end(), [](const AxisRow& a) { return a.value == "hw: PVC"; });
  ASSERT_NE(s, r.suggested.end());
  EXPECT_EQ(s->reason.rfind("Never proposed on the tracker's history", 0), 0u) << s->reason;
}

// A maintainer's corrections are the truth for their issue and weigh more: removing `performance` from zorbix issues
// the bot labeled makes the label less certain on zorbix issues, so its threshold moves up (or out of reach).
TEST(Calibration, CorrectionsMoveALabelsThreshold) {
  const auto h = judged_history();
  const auto before = train_model(h, xpu_taxonomy(), folds()).value();
  std::vector<Correction> corrections;
  for (int i = 0; i < 24; i += 2) corrections.push_back({3000 + i, "performance", false});  // 12 zorbix issues
  corrections.push_back({99999, "performance", false});  // an issue outside the history: skipped
  corrections.push_back({3001, "not a label", true});    // outside the taxonomy: skipped
  TrainReport rep;
  const auto after = train_model(h, xpu_taxonomy(), folds(), &rep, corrections).value();
  EXPECT_EQ(rep.corrections, 12);
  const auto& b = calibration_of(before, "performance", Origin::rules);
  const auto& a = calibration_of(after, "performance", Origin::rules);
  EXPECT_EQ(a.judged, b.judged);  // a removed label is judged on its issue, whatever else the tracker set there
  EXPECT_EQ(a.kept, b.kept - 12);
  const auto from_before = b.from(0.9);
  ASSERT_TRUE(from_before.has_value());
  const auto from_after = a.from(0.9);
  EXPECT_TRUE(!from_after || *from_after > *from_before)
      << "threshold " << *from_before << " -> " << (from_after ? std::to_string(*from_after) : "none");
  // A label a maintainer added counts as the tracker's: the issue carries it in the training.
  const auto added = train_model(h, xpu_taxonomy(), folds(), &rep, {{3001, "hw: BMG", true}}).value();
  EXPECT_EQ(rep.corrections, 1);
  EXPECT_EQ(added.trained_issues, 60);
}

TEST(Calibration, AModelFileKeepsItAndRefusesABadOne) {
  const auto m = train_model(judged_history(), xpu_taxonomy(), folds()).value();
  auto j = to_json(m);
  const auto back = parse_model(j).value();
  EXPECT_EQ(to_json(back).dump(), j.dump());
  EXPECT_DOUBLE_EQ(back.apply_at, 0.9);
  // A file written before calibration: none, so the tiered layer suggests everything but the issue's own labels.
  j.erase("calibration");
  EXPECT_TRUE(parse_model(j).value().calibration.empty());
  j = to_json(m);
  using nlohmann::json;
  const json bad_steps[] = {
      json::array({json::array({0.5, 0.6, 0.9}), json::array({0.1, 0.2, 0.95})}),  // descending
      json::array({json::array({0.1, 0.2, 0.9}), json::array({0.3, 0.4, 0.5})}),   // a value that falls
      json::array({json::array({0.6, 0.5, 0.9})}),                                 // hi below lo
      json::array({json::array({0.5, 0.6, 1.5})}),                                 // over 1
      json::array({json::array({0.5, 0.6})}),                                      // not a triple
      json("0.5")};
  for (const auto& steps : bad_steps) {
    auto copy = j;
    copy["calibration"][0]["steps"] = steps;
    auto r = parse_model(copy);
    ASSERT_FALSE(r.ok()) << steps;
    EXPECT_EQ(r.error().code, "bad_model");
  }
  auto copy = j;
  copy["calibration"][0]["source"] = "guess";
  EXPECT_FALSE(parse_model(copy).ok());
  copy = j;
  copy["apply_at"] = 0;
  EXPECT_FALSE(parse_model(copy).ok());
}

TEST(ValueGroups, AValueIsJudgedOnlyWhereTheTrackerSetOneOfItsGroup) {
  const auto* symptom = xpu_taxonomy().axis("symptom");
  ASSERT_NE(symptom, nullptr);
  EXPECT_TRUE(symptom->judged("inference", {"training"}));
  EXPECT_FALSE(symptom->judged("inference", {"performance"}));  // a tracker that never labels the mode
  EXPECT_TRUE(symptom->judged("performance", {"Accuracy"}));
  EXPECT_FALSE(symptom->judged("performance", {"inference"}));
  EXPECT_FALSE(symptom->judged("performance", {}));
  const auto* hw = xpu_taxonomy().axis("hw");
  EXPECT_TRUE(hw->judged("hw: BMG", {"hw: PVC"}));
  // In the taxonomy's JSON, a group may list only the axis' own labels, each in one group.
  const auto tax = [](const char* groups) {
    return load_taxonomy(std::string(R"({"name": "t", "axes": [{"axis": "symptom", "multi": true, "values": )"
                                     R"({"a": "A", "b": "B", "c": "C"}, "groups": )") +
                         groups + "}]}");
  };
  EXPECT_TRUE(tax(R"([["A", "B"]])").ok());
  for (const char* bad : {R"([["A", "Z"]])", R"([["A"], ["A", "B"]])", R"("A")", R"([[]])"}) {
    auto r = tax(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.error().code, "bad_taxonomy");
  }
  EXPECT_EQ(to_json(tax(R"([["A", "B"]])").value())["axes"][0]["groups"], nlohmann::json::parse(R"([["A", "B"]])"));
}

TEST(TimeSplit, OlderAndNewerPartsByIssueNumber) {
  const auto split = parse_split(R"({"_comment": "x", "intel/torch-xpu-ops": 3030})").value();
  const auto older = split_part(judged_history(), split, SplitPart::older).value();
  const auto newer = split_part(judged_history(), split, SplitPart::newer).value();
  EXPECT_EQ(older.size(), 30u);
  EXPECT_EQ(newer.size(), 30u);
  EXPECT_EQ(older.back().number, 3029);
  EXPECT_EQ(newer.front().number, 3030);
  auto other = judged_history();
  other[5].repo = "pytorch/pytorch";
  auto r = split_part(other, split, SplitPart::older);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("pytorch/pytorch"), std::string::npos);
  for (const char* bad : {"[1]", R"({"a/b": "12"})", R"({"a/b": 0})", "not json"})
    EXPECT_FALSE(parse_split(bad).ok()) << bad;
  EXPECT_EQ(split_part_from_name("newer"), SplitPart::newer);
  EXPECT_FALSE(split_part_from_name("middle").has_value());
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
