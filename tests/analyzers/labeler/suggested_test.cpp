// Values whose evidence is too weak to apply: kept apart as suggestions (never labels), shown in the comment and the
// JSON with their reasons, and still enough for a taxonomy's implication.
#include <gtest/gtest.h>

#include "analyzers/labeler/labeler.hpp"
#include "tests/analyzers/labeler/helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

LabelResult label_pytorch(const std::string& title, const std::string& body) {
  auto tax = load_taxonomy("pytorch");
  EXPECT_TRUE(tax.ok());
  IssueInput in;
  in.title = title;
  in.body = body;
  in.repo = "pytorch/pytorch";
  in.number = 7;
  return label_issue(in, *tax, {}, Layers::rules);
}

const AxisRow* suggested(const LabelResult& r, const std::string& value) {
  for (const auto& s : r.suggested)
    if (s.value == value) return &s;
  return nullptr;
}

TEST(Suggested, TorchCompileOnPytorchSuggestsInductorAndAppliesPt2) {
  const auto r = label_pytorch("torch.compile makes my model 2x slower", "Running it eagerly is fine.");
  EXPECT_FALSE(has_label(r, "module: inductor"));
  const auto* s = suggested(r, "module: inductor");
  ASSERT_NE(s, nullptr) << to_json(r).dump(2);
  EXPECT_EQ(s->layer, Origin::suggested);
  EXPECT_EQ(s->reason, "`torch.compile` in the title.");
  EXPECT_TRUE(has_label(r, "oncall: pt2"));  // the implication holds: it is a pt2 issue whatever its module
  ASSERT_TRUE(to_json(r).contains("suggested"));
  EXPECT_EQ(to_json(r)["suggested"][0]["value"], "module: inductor");
  const auto comment = render_comment({}, r);
  EXPECT_NE(comment.find("Suggested, not applied"), std::string::npos) << comment;
  EXPECT_NE(comment.find("| module | module: inductor | `torch.compile` in the title. |"), std::string::npos)
      << comment;
}

TEST(Suggested, AStrongerPatternElsewhereDecidesTheModule) {
  // torch.compile in the title, a graph break in the error: dynamo's own words win, nothing is suggested.
  const auto r =
      label_pytorch("torch.compile fails on my model", "```\ntorch._dynamo.exc.Unsupported: graph break\n```");
  EXPECT_TRUE(has_label(r, "module: dynamo")) << to_json(r).dump(2);
  EXPECT_TRUE(r.suggested.empty()) << to_json(r).dump(2);
  // inductor named in the title itself is applied as before.
  EXPECT_TRUE(has_label(label_pytorch("[inductor] wrong result with max-autotune", "repro below"), "module: inductor"));
}

TEST(Suggested, AModuleOnlyInTheBodysProseIsSuggested) {
  const auto r = label("[BMG] resnet50 slower after driver update",
                       "The training step takes 20% longer. I also tried it with inductor and saw the same.");
  EXPECT_EQ(value_of(r, "module"), "") << to_json(r).dump(2);
  const auto* s = suggested(r, "module: inductor");
  ASSERT_NE(s, nullptr) << to_json(r).dump(2);
  EXPECT_EQ(s->reason, "`inductor` in the description.");
  EXPECT_FALSE(has_label(r, "module: inductor"));
  // Without any suggestion the JSON and the comment say nothing of them: answers stay as they were.
  const auto plain = label("[BMG] resnet50 slower after driver update", "The training step takes 20% longer.");
  EXPECT_TRUE(plain.suggested.empty());
  EXPECT_FALSE(to_json(plain).contains("suggested"));
  EXPECT_EQ(render_comment({}, plain).find("Suggested"), std::string::npos);
}

TEST(Suggested, TheSeedStillGetsItsLabelsWithNothingSuggested) {
  const auto r = label("[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)",
                       read_fixture("labeler/seed_3761_body.md"));
  EXPECT_TRUE(has_label(r, "module: inductor"));
  EXPECT_TRUE(r.suggested.empty()) << to_json(r).dump(2);
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
