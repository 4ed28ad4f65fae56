// to_json and the comment: stable shape, marker first, pipes escaped, no cases handled.
#include "analyzers/labeler/text.hpp"
#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

TEST(LabelerRender, CommentWithoutCases) {
  IssueInput in{"[LNL] Segmentation fault in torch.xpu.empty_cache",
                "Segmentation fault (core dumped) | boom",
                {},
                "intel/torch-xpu-ops",
                42};
  auto r = label_issue(in, xpu_taxonomy());
  auto c = render_comment(in, r);
  EXPECT_EQ(c.rfind(std::string(kCommentMarker), 0), 0u);
  EXPECT_NE(c.find("label-issue: intel/torch-xpu-ops#42"), std::string::npos);
  EXPECT_NE(c.find("Analyzed case: none"), std::string::npos);
  EXPECT_NE(c.find("Test cases (0):"), std::string::npos);
  // Every table row has exactly four unescaped pipes.
  for (const auto& line : split(c, '\n')) {
    if (!line.starts_with("| ")) continue;
    int pipes = 0;
    for (std::size_t i = 0; i < line.size(); ++i)
      if (line[i] == '|' && (i == 0 || line[i - 1] != '\\')) ++pipes;
    EXPECT_EQ(pipes, 4) << line;
  }
  auto j = to_json(r);
  EXPECT_EQ(j["analyzed_case"], 0);
  EXPECT_EQ(j["cases"].size(), 0u);
  EXPECT_EQ(value_of(r, "priority"), "Urgent");  // crash in a core API
}

TEST(LabelerRender, JsonCasesCarryTheirFields) {
  auto r = label("[BMG] x", "FAILED test/test_nn.py::TestNNDeviceTypeXPU::test_a_xpu_float32 - RuntimeError: boom\n");
  auto j = to_json(r);
  ASSERT_EQ(j["cases"].size(), 1u);
  const auto& c = j["cases"][0];
  EXPECT_EQ(c["test_id"], "test/test_nn.py::TestNNDeviceTypeXPU::test_a_xpu_float32");
  EXPECT_EQ(c["dtype"], "float32");
  EXPECT_TRUE(c["speedup"].is_null());
  EXPECT_EQ(c["error"], "RuntimeError: boom");
  EXPECT_EQ(j["labels"], nlohmann::json(r.labels));
}

TEST(LabelerRender, EmptyIssue) {
  auto r = label("", "");
  EXPECT_EQ(value_of(r, "test"), "test: ut");
  EXPECT_EQ(value_of(r, "priority"), "Medium");
  EXPECT_EQ(r.labels, (std::vector<std::string>{"test: ut"}));
  EXPECT_FALSE(r.root_cause.empty());
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
