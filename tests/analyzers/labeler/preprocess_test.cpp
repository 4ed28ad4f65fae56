// Pre-processing and title rules: environment zone, cc lines, Excel HTML, struck rows, tags and hw aliases.
#include "analyzers/labeler/text.hpp"
#include "analyzers/labeler/title.hpp"
#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

TEST(LabelerPreprocess, CutsTheEnvironmentZone) {
  for (const char* marker : {"### Versions", "Collecting environment information...", "PyTorch version: 2.12"}) {
    auto p =
        preprocess(std::string("line one\r\nline two\r\n") + marker + "\nOS: Windows 11\nGPU: Intel(R) Arc(TM) B580\n");
    EXPECT_EQ(p.lines, (std::vector<std::string>{"line one", "line two"})) << marker;
    EXPECT_NE(p.env.find("B580"), std::string::npos);
  }
}

TEST(LabelerPreprocess, DetailsWithADeviceDumpGoToTheEnvironment) {
  auto p = preprocess(
      "before\n<details><summary>env</summary>\nOS: Ubuntu 22.04\nGPU models and configuration: "
      "Intel(R) Arc(TM) A770\n</details>\nafter\n<details><summary>log</summary>\nRuntimeError: x\n"
      "</details>\n");
  std::string all = join(p.lines, "\n");
  EXPECT_EQ(all.find("A770"), std::string::npos);
  EXPECT_NE(all.find("RuntimeError: x"), std::string::npos);  // a log in <details> stays
  EXPECT_NE(p.env.find("A770"), std::string::npos);
}

TEST(LabelerPreprocess, DropsCcLines) {
  auto p = preprocess("real text\ncc @EikanWang @jgong5 @mingfeima\n  cc @voznesenskym distributed\n");
  EXPECT_EQ(p.lines, (std::vector<std::string>{"real text"}));
  EXPECT_EQ(p.cc_lines_dropped, 2);
}

TEST(LabelerPreprocess, StripsExcelHtml) {
  auto p = preprocess(
      "<!--StartFragment--><table><tr><td>model</td><td>speedup</td></tr>"
      "<tr><td>resnet50</td><td>0.8</td></tr></table><!--EndFragment-->");
  EXPECT_TRUE(p.had_html);
  auto all = join(p.lines, "\n");
  EXPECT_EQ(all.find('<'), std::string::npos) << all;
  EXPECT_NE(all.find("resnet50 | 0.8 |"), std::string::npos) << all;
}

TEST(LabelerPreprocess, StruckCaseRowsAreResolved) {
  auto p =
      preprocess("| model | speedup |\n| --- | --- |\n| ~~alexnet~~ | ~~0.9~~ |\n| vgg16 | 0.8 |\nthe ~~old~~ text\n");
  ASSERT_EQ(p.struck.size(), 1u);
  EXPECT_NE(p.struck[0].find("alexnet"), std::string::npos);
  EXPECT_EQ(p.lines.back(), "the  text");
}

TEST(LabelerPreprocess, EnvLines) {
  EXPECT_TRUE(is_env_line("  • Environment: Ubuntu 24.04 LTS, oneMKL 2025.3.1"));
  EXPECT_TRUE(is_env_line("- OS: Windows 11"));
  EXPECT_TRUE(is_env_line("GPU: Intel(R) Arc(TM) B580 Graphics"));
  EXPECT_FALSE(is_env_line("Fails only on Windows."));
}

TEST(LabelerPreprocess, ErrorLines) {
  EXPECT_TRUE(is_error_line("RuntimeError: boom"));
  EXPECT_TRUE(is_error_line("the process hangs"));
  EXPECT_FALSE(is_error_line("This change improves the kernel."));
}

TEST(LabelerTitle, TagsAndAliases) {
  const auto& t = xpu_taxonomy();
  auto info = parse_title("[ARC E2E] hf_T5 fails", t);
  ASSERT_EQ(info.tags, (std::vector<std::string>{"ARC E2E"}));
  bool arc = false, e2e = false;
  for (const auto& h : info.hits) {
    arc |= h.axis == "hw" && h.key == "ARC";
    e2e |= h.axis == "test" && h.key == "e2e";
  }
  EXPECT_TRUE(arc && e2e);
  EXPECT_EQ(info.rest, "hf_T5 fails");
  auto prefix = parse_title("ARC: FP64: torch.linalg.eigh not supported", t);
  EXPECT_EQ(prefix.tags, (std::vector<std::string>{"ARC", "FP64"}));
  EXPECT_EQ(prefix.rest, "torch.linalg.eigh not supported");
  EXPECT_EQ(parse_title("[Bug Skip]: test_x", t).rest, "test_x");
  EXPECT_EQ(find_hw_in_tag("BMG/LNL", t), (std::set<std::string>{"BMG", "LNL"}));
  EXPECT_EQ(find_hw_in_tag("B60", t), (std::set<std::string>{"BMG"}));
}

TEST(LabelerTitle, HwAliasesInText) {
  const auto& t = xpu_taxonomy();
  EXPECT_EQ(find_hw("runs on a b580 and a b570", t), (std::set<std::string>{"BMG"}));
  EXPECT_EQ(find_hw("intel data center gpu max 1550", t), (std::set<std::string>{"PVC"}));
  EXPECT_EQ(find_hw("lunar lake 140v", t), (std::set<std::string>{"LNL"}));
  EXPECT_TRUE(find_hw("intel(r) arc(tm) graphics", t).empty());  // bare Arc is not ARC
  EXPECT_TRUE(find_hw("the arc of the story", t).empty());
  EXPECT_EQ(find_hw("device id 0xBDA", t), (std::set<std::string>{"PVC"}));  // = 0x0bda
  EXPECT_EQ(find_hw("device id 0x0bda", t), (std::set<std::string>{"PVC"}));
  EXPECT_TRUE(find_hw("address 0x0bda12", t).empty());
}

TEST(LabelerTitle, HwAndOsNeverFromTheEnvironmentAlone) {
  auto r = label("index_put_ fails", "RuntimeError: bad\n\n### Versions\nOS: Windows 11\nGPU: Intel(R) Arc(TM) B580\n");
  EXPECT_EQ(value_of(r, "hw"), "");
  EXPECT_EQ(value_of(r, "os"), "");
  auto r2 = label("[B60] index_put_ fails", "RuntimeError: bad\nDevice: Intel(R) Arc(TM) A770 Graphics\n");
  EXPECT_EQ(value_of(r2, "hw"), "hw: BMG");
}

TEST(LabelerTitle, TwoOsLabelsOnTheIssueGiveNoValue) {
  auto r = label("x fails", "RuntimeError: x", {"os: Linux", "os: Windows"});
  EXPECT_EQ(value_of(r, "os"), "");
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
