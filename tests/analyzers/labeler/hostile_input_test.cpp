// Hostile bodies must not crash the labeler (std::regex overflowed the stack on a 30 KB line) nor
// cost seconds of CPU. Every case runs under the default CPU budget (2 s) with ASan in the dev preset.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

IssueInput issue(std::string title, std::string body, std::vector<std::string> labels = {}) {
  IssueInput in;
  in.title = std::move(title);
  in.body = std::move(body);
  in.labels = std::move(labels);
  in.repo = "intel/torch-xpu-ops";
  in.number = 10;
  return in;
}

// A body of every shape the labeler reads (tables, FAILED lines, commands, summaries, HTML, URLs, strike-through,
// versions, percentages), repeated to `n` characters.
std::string mixed_body(std::size_t n) {
  static const std::vector<std::string> kTokens{
      "FAILED test/xpu/test_ops_xpu.py::TestCommonXPU::test_compare_cpu_add_xpu_bfloat16 - AssertionError: not close\n",
      "| model | suite | dtype | speedup |\n|---|---|---|---|\n| BertForMaskedLM | huggingface | bfloat16 | 0.82 |\n\n",
      "huggingface amp_bf16 inference 2.13 vs 2.12 drop 12% regression -3.5% compared with eager passed but fails\n",
      "python benchmarks/dynamo/huggingface.py --accuracy --amp --amp-dtype bfloat16 -d xpu --inference --only "
      "T5Small\n",
      "<details><summary>log</summary>RuntimeError: UR error 0xdeadbeef</details> ~~struck~~ https://github.com/a/b\n",
      "summary for huggingface bfloat16 inference accuracy\n[['T5Small', 'fail_accuracy'], ['BertForMaskedLM', "
      "'pass']]\n\n",
      "pytest -v test/inductor/test_torchinductor.py -k test_conv2d_xpu segfault hang flaky on BMG Ubuntu 24.04\n",
      "aaaa bbbbbbb ccccc expected 3 actual 4 &nbsp; &lt; <!-- c --> 1.5x slower 30% drop; ",
  };
  std::string s;
  for (std::size_t i = 0; s.size() < n; ++i) s += kTokens[i % kTokens.size()];
  s.resize(n);
  return s;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Labels within the default budget; fails the test on an error.
LabelResult label_ok(const IssueInput& in, const char* what) {
  const auto t0 = std::chrono::steady_clock::now();
  auto r = label_issue_within(in, xpu_taxonomy());
  std::printf("[ hostile  ] %s: %.1f ms\n", what, ms_since(t0));
  EXPECT_TRUE(r.ok()) << what << ": " << (r.ok() ? "" : r.error().code + " " + r.error().message);
  return r.ok() ? std::move(r).value() : LabelResult{};
}

TEST(HostileInput, InlineTaxonomyFieldOfTheWrongTypeIsRefusedNotThrown) {
  // fuzz/regressions/taxonomy/axis-multi-not-bool.json: "multi" held a string; nlohmann's value() threw.
  for (const char* text :
       {R"({"name":"t","axes":[{"axis":"a","multi":"yes","values":{}}]})", R"({"name":"t","repo":7,"axes":[]})",
        R"({"name":"t","axes":[{"axis":"a","color":[1],"values":{"x":"a: x"}}]})"}) {
    auto t = parse_taxonomy(nlohmann::json::parse(text));
    ASSERT_FALSE(t) << text;
    EXPECT_EQ(t.error().code, "bad_taxonomy") << text;
  }
}

TEST(HostileInput, ThirtyThousandAsOnOneLine) {
  auto r = label_ok(issue("[BMG] crash", std::string(30000, 'a')), "a x 30000");
  EXPECT_FALSE(r.truncated.body);
}

TEST(HostileInput, FailedLineWithThirtyThousandChars) {
  auto r = label_ok(issue("[BMG] UT failure", "FAILED a::b - " + std::string(30000, 'x')), "FAILED a::b - x*30000");
  EXPECT_FALSE(r.truncated.body);
  // The same shape with a real test id still parses, error text and all.
  auto r2 = label_ok(
      issue("[BMG] UT failure", "FAILED test/test_ops.py::TestX::test_y_bfloat16 - " + std::string(30000, 'x')),
      "FAILED test_ops.py::... - x*30000");
  ASSERT_EQ(r2.cases.size(), 1u);
  EXPECT_EQ(r2.cases[0].test_id, "test/test_ops.py::TestX::test_y_bfloat16");
  EXPECT_EQ(r2.cases[0].error.size(), 30000u);
}

TEST(HostileInput, LongRunsOfEveryPatternAlphabet) {
  // Long lines built from what each pattern repeats: \w runs, spaces, pipes, quotes, digits, dots.
  for (const auto& body :
       {std::string(60000, ' ') + "x", "test_" + std::string(60000, 'a') + ".py::", std::string(60000, '|'),
        "[" + std::string(60000, '\'') + "]", std::string(60000, '1') + "%", "1." + std::string(60000, '0'),
        "passed " + std::string(60000, 'x') + " fails", "compared with " + std::string(60000, 'e'),
        "x.py " + std::string(60000, 'a') + " -k test", std::string(60000, '-') + "1%"}) {
    label_ok(issue("[BMG] long line", body), "long run");
  }
}

TEST(HostileInput, QuadraticShapes) {
  // Shapes the hand-written passes used to handle in quadratic time (repeated erase / find from the start).
  std::string rows;
  while (rows.size() < 65000) rows += "|model|suite|\n";
  std::string details;
  while (details.size() < 65000) details += "<details>";
  std::string comments;
  while (comments.size() < 65000) comments += "<!---->";
  std::string entities;
  while (entities.size() < 65000) entities += "<br>&nbsp;";
  std::string struck;
  while (struck.size() < 65000) struck += "~~a~~";
  std::string cmds;
  while (cmds.size() < 65000) cmds += "benchmarks/dynamo/torchbench.py \\\n";
  std::string paths;
  while (paths.size() < 65000) paths += "benchmarks/dynamo/";
  std::string lt(65000, '<');
  for (const auto* b : {&rows, &details, &comments, &entities, &struck, &cmds, &paths, &lt})
    label_ok(issue("[BMG] shapes", *b), "quadratic shape");
}

TEST(HostileInput, SixtyFiveKilobyteMixedBodyIsTimed) {
  const auto body = mixed_body(65536);
  ASSERT_EQ(body.size(), 65536u);
  const auto t0 = std::chrono::steady_clock::now();
  auto r = label_ok(issue("[BMG] huggingface models slower than eager", body), "65,536-char mixed body");
  std::printf("[ timing   ] 65,536-character mixed body labeled in %.1f ms (%zu cases, %zu labels)\n", ms_since(t0),
              r.cases.size(), r.labels.size());
  EXPECT_FALSE(r.truncated.body);  // exactly at the limit
  EXPECT_FALSE(r.labels.empty());
  EXPECT_FALSE(r.cases.empty());
}

TEST(HostileInput, OneMegabyteBodyIsTruncatedAndStillLabeled) {
  auto r = label_ok(issue("[BMG] huggingface models slower than eager", mixed_body(1 << 20)), "1 MB body");
  EXPECT_TRUE(r.truncated.body);
  EXPECT_FALSE(r.truncated.title);
  EXPECT_FALSE(r.labels.empty());
  EXPECT_FALSE(r.cases.empty());
  auto j = to_json(r);
  EXPECT_EQ(j["truncated"]["body"], true);
  EXPECT_EQ(j["truncated"]["title"], false);
  EXPECT_NE(render_comment(issue("t", ""), r).find("truncated"), std::string::npos);
  // The plain entry point applies the same caps.
  EXPECT_TRUE(label_issue(issue("[BMG] x", mixed_body(1 << 20)), xpu_taxonomy()).truncated.body);
}

TEST(HostileInput, TenThousandCharacterTitle) {
  auto r = label_ok(issue("[BMG] " + std::string(10000, 'T'), "speedup 0.5"), "10,000-char title");
  EXPECT_TRUE(r.truncated.title);
  EXPECT_FALSE(r.truncated.body);
}

TEST(HostileInput, TenThousandLabels) {
  std::vector<std::string> labels;
  for (int i = 0; i < 10000; ++i) labels.push_back("label " + std::to_string(i));
  labels.push_back(std::string(5000, 'L'));
  auto r = label_ok(issue("[BMG] many labels", "speedup 0.5", labels), "10,000 labels");
  EXPECT_TRUE(r.truncated.labels);
  auto j = to_json(r);
  EXPECT_EQ(j["truncated"]["labels"], true);
}

TEST(HostileInput, CapsCutOnUtf8Boundaries) {
  Truncation t;
  LabelSettings s;
  std::string title;
  for (int i = 0; i < 300; ++i) title += "\xc3\xa9";  // é, 2 bytes
  std::string body = "a";
  for (int i = 0; i < 70000; ++i) body += "\xe2\x86\x92";  // →, 3 bytes
  std::vector<std::string> labels(150, "ok");
  labels[3] = std::string(51, 'x');  // longer than GitHub allows: dropped
  labels[4] = "";
  for (int i = 0; i < 50; ++i) labels[4] += "\xc3\xa9";  // 50 characters, 100 bytes: kept
  auto in = bound_input(issue(title, body, labels), s, t);
  EXPECT_TRUE(t.title && t.body && t.labels);
  EXPECT_EQ(in.title.size(), 256u * 2);
  EXPECT_EQ(in.body.size(), 1u + 65535u * 3);
  EXPECT_EQ(in.labels.size(), 100u);
  EXPECT_EQ(in.labels[3].size(), 100u);
  Truncation none;
  auto same = bound_input(issue("short", "body", {"a", "b"}), s, none);
  EXPECT_FALSE(none.title || none.body || none.labels);
  EXPECT_EQ(same.body, "body");
}

TEST(HostileInput, BudgetExceededIsAnError) {
  for (auto budget : {std::chrono::microseconds(0), std::chrono::microseconds(1)}) {
    LabelSettings s;
    s.cpu_budget = budget;
    auto r = label_issue_within(issue("[BMG] slow", mixed_body(65536)), xpu_taxonomy(), {}, s);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, ErrorKind::unprocessable);
    EXPECT_EQ(r.error().code, "label_budget_exceeded");
    EXPECT_NE(r.error().message.find("budget"), std::string::npos) << r.error().message;
    EXPECT_NE(r.error().message.find(budget.count() == 0 ? "0 ms" : "0.001 ms"), std::string::npos)
        << r.error().message;
  }
  // Unlimited: the same input labels.
  LabelSettings unlimited;
  unlimited.cpu_budget = std::chrono::microseconds::max();
  EXPECT_TRUE(label_issue_within(issue("[BMG] slow", mixed_body(65536)), xpu_taxonomy(), {}, unlimited).ok());
}

TEST(HostileInput, WithinBudgetMatchesPlainLabeling) {
  auto in = issue("[BMG] huggingface models slower than eager", mixed_body(20000));
  auto a = label_issue_within(in, xpu_taxonomy());
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(to_json(*a), to_json(label_issue(in, xpu_taxonomy())));
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
