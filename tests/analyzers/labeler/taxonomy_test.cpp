// Taxonomies are data: built-ins embedded at build time, a JSON file or text loads a new tracker.
#include <cstdio>
#include <string>

#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

TEST(LabelerTaxonomy, BuiltinsAreEmbedded) {
  auto names = builtin_taxonomies();
  EXPECT_NE(std::find(names.begin(), names.end(), "torch-xpu-ops"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "pytorch"), names.end());
  auto t = load_taxonomy("");  // default
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->name, "torch-xpu-ops");
  EXPECT_EQ(t->repo, "intel/torch-xpu-ops");
  EXPECT_EQ(t->label_for("hw", "BMG"), "hw: BMG");
  EXPECT_EQ(t->label_for("test", "e2e"), "test: e2e");
  EXPECT_FALSE(t->label_for("hw", "TPU").has_value());
  ASSERT_NE(t->axis("priority"), nullptr);
  EXPECT_FALSE(t->axis("priority")->applied);
  EXPECT_FALSE(t->axis("type")->applied);
  EXPECT_EQ(t->modules.front().key, "distributed");
  EXPECT_EQ(t->modules.back().key, "infra");
  EXPECT_EQ(t->color_for("hw: PVC"), t->axis("hw")->color);
  EXPECT_NE(t->color_for("hw: PVC"), t->color_for("test: ut"));  // one colour per axis
}

TEST(LabelerTaxonomy, LegacySpellingsMapAndAreNeverEmitted) {
  const auto& t = xpu_taxonomy();
  EXPECT_EQ(t.canonical_label("hw: Arc"), "hw: ARC");
  EXPECT_EQ(t.canonical_label("hw : LNL"), "hw: LNL");
  EXPECT_EQ(t.canonical_label("os: Ubuntu"), "os: Linux");
  EXPECT_EQ(t.canonical_label("E2E"), "test: e2e");
  EXPECT_EQ(t.canonical_label("module: ut"), "test: ut");
  EXPECT_FALSE(t.canonical_label("good first issue").has_value());
  auto r = label("[ARC] linalg.solve fails", "RuntimeError: boom", {"hw : LNL", "module: ut", "os: Ubuntu"});
  EXPECT_TRUE(has_label(r, "hw: LNL"));  // a human value wins, in its canonical spelling
  EXPECT_TRUE(has_label(r, "test: ut"));
  EXPECT_TRUE(has_label(r, "os: Linux"));
  for (const auto& l : r.labels) {
    EXPECT_NE(l, "hw : LNL");
    EXPECT_NE(l, "module: ut");
    EXPECT_NE(l, "os: Ubuntu");
  }
}

TEST(LabelerTaxonomy, PytorchTaxonomyHasNoHwDtypeTestAxes) {
  auto t = load_taxonomy("pytorch");
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->repo, "pytorch/pytorch");
  IssueInput in{"[BMG] PyTorch 2.12 performance cases where inductor is slower than eager (speedup < 1)",
                read_fixture("labeler/seed_3761_body.md"),
                {},
                "pytorch/pytorch",
                1};
  auto r = label_issue(in, *t);
  EXPECT_EQ(sorted(r.labels),
            (std::vector<std::string>{"module: inductor", "module: performance", "module: xpu", "oncall: pt2"}));
  for (const auto& l : r.labels) {
    EXPECT_EQ(l.find("hw:"), std::string::npos);
    EXPECT_EQ(l.find("dtype:"), std::string::npos);
    EXPECT_EQ(l.find("test:"), std::string::npos);
  }
  EXPECT_EQ(r.cases.size(), 11u);
}

TEST(LabelerTaxonomy, PytorchCrashAndWindows) {
  auto t = load_taxonomy("pytorch");
  ASSERT_TRUE(t.ok());
  IssueInput in{"[Windows] torch.compile segfaults", "Segmentation fault (core dumped) in torch._inductor", {}, "", 0};
  auto r = label_issue(in, *t);
  EXPECT_TRUE(std::find(r.labels.begin(), r.labels.end(), "module: windows") != r.labels.end());
  EXPECT_TRUE(std::find(r.labels.begin(), r.labels.end(), "module: crash") != r.labels.end());
  EXPECT_TRUE(std::find(r.labels.begin(), r.labels.end(), "module: inductor") != r.labels.end());
}

// A third tracker, written by the test: no code change needed to label for it.
TEST(LabelerTaxonomy, ThirdTaxonomyFromAFile) {
  const perftriage::testing::TempDir dir("perftriage-labeler");
  const std::string path = dir.write("acme.json", R"({
      "name": "acme-gpu", "repo": "acme/gpu-tracker",
      "axes": [
        {"axis": "test", "color": "112233", "default": "ut",
         "values": {"ut": "kind/unit-test", "e2e": "kind/benchmark", "oob": "kind/oob"}},
        {"axis": "hw", "color": "445566", "values": {"ZX9": "gpu/zx9"}},
        {"axis": "module", "values": {"compiler": "area/compiler", "kernels": "area/kernels"}},
        {"axis": "symptom", "multi": true, "values": {"performance": "perf", "Accuracy": "numerics"}}
      ],
      "hw_aliases": [{"key": "ZX9", "aliases": ["zx9", "zephyr x9", "0x0a9f"]}],
      "title_tags": {"bench": ["test", "e2e"]},
      "modules": [{"key": "kernels", "patterns": ["=gemm", "kernels/"]}, {"key": "compiler", "patterns": ["jit", "codegen"]}],
      "dependencies": [],
      "legacy": {"perf-issue": "perf"}
    })");
  auto t = load_taxonomy(path);
  ASSERT_TRUE(t.ok()) << t.error().message;
  EXPECT_EQ(t->name, "acme-gpu");
  auto r = label_issue({"[Bench] codegen slower on the Zephyr X9", "speedup 0.7 on device 0xA9F", {}, "", 0}, *t);
  EXPECT_EQ(sorted(r.labels), (std::vector<std::string>{"area/compiler", "gpu/zx9", "kind/benchmark", "perf"}));
  EXPECT_EQ(t->canonical_label("perf-issue"), "perf");
  EXPECT_EQ(t->color_for("gpu/zx9"), "445566");
}

TEST(LabelerTaxonomy, InheritsRulesFromABase) {
  auto t = load_taxonomy(R"({"name": "mini", "base": "torch-xpu-ops",
                             "axes": [{"axis": "hw", "values": {"BMG": "platform-bmg"}}]})");
  ASSERT_TRUE(t.ok()) << t.error().message;
  auto r = label_issue({"[B60] something fails", "RuntimeError: x", {}, "", 0}, *t);
  EXPECT_EQ(r.labels, (std::vector<std::string>{"platform-bmg"}));
}

TEST(LabelerTaxonomy, Errors) {
  auto missing = load_taxonomy("/nonexistent/tracker.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, "taxonomy_not_found");
  auto unknown = load_taxonomy("no-such-tracker");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, "unknown_taxonomy");
  EXPECT_NE(unknown.error().message.find("torch-xpu-ops"), std::string::npos);
  EXPECT_FALSE(load_taxonomy("{not json").ok());
  EXPECT_FALSE(load_taxonomy(R"({"name": "x"})").ok());                               // no axes
  EXPECT_FALSE(load_taxonomy(R"({"name": "x", "axes": [{"axis": "hw"}]})").ok());     // no values
  EXPECT_FALSE(load_taxonomy(R"({"name": "x", "axes": [], "modules": [{}]})").ok());  // rule without key
  EXPECT_EQ(load_taxonomy(R"({"axes": []})").error().code, "bad_taxonomy");
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
