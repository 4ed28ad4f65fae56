// Taxonomy JSON (POST /label "taxonomy": {...}, --bot-taxonomy FILE): parse_bounded_json then parse_taxonomy, its
// lookups over its own spellings, a round trip through to_json, and one labelling with it.
#include "analyzers/labeler/labeler.hpp"
#include "analyzers/labeler/taxonomy.hpp"
#include "common/bounded_json.hpp"
#include "fuzz/fuzz_util.hpp"

using namespace perftriage;
namespace lb = perftriage::analyzers::labeler;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto j = parse_bounded_json(fuzz::as_view(data, size), "taxonomy");
  if (!j) return 0;
  auto t = lb::parse_taxonomy(*j);
  if (!t) {
    FUZZ_CHECK(!t.error().code.empty(), t.error().message);
    return 0;
  }
  const lb::Taxonomy& tax = *t;
  for (const auto& axis : tax.axes) {
    (void)tax.axis(axis.name);
    for (const auto& [key, label] : axis.values) {
      (void)tax.label_for(axis.name, key);
      (void)tax.parse_label(label);
      (void)tax.canonical_label(label);
      (void)tax.color_for(label);
    }
  }
  for (const auto& [spelling, canonical] : tax.legacy) {
    (void)tax.parse_label(spelling);
    (void)tax.canonical_label(canonical);
  }
  for (const auto& tag : tax.title_tags) (void)tax.title_tag(tag.first);

  const nlohmann::json again = lb::to_json(tax);
  (void)perftriage::dump_json(again);
  auto reparsed = lb::parse_taxonomy(again);
  FUZZ_CHECK(reparsed.ok(),
             "to_json of a parsed taxonomy does not parse: " + (reparsed ? std::string() : reparsed.error().message));
  FUZZ_CHECK(lb::to_json(*reparsed) == again, "to_json / parse_taxonomy round trip changes the taxonomy");

  lb::IssueInput issue;
  issue.title = "[E2E][BMG][Linux] huggingface amp_bf16 inference: DebertaV2ForMaskedLM slower than eager";
  issue.body =
      "| suite | dtype | mode | model | speedup |\n|---|---|---|---|---|\n"
      "| huggingface | amp_bf16 | inference | DebertaV2ForMaskedLM | 0.82 |\n"
      "FAILED test/xpu/test_ops_xpu.py::TestCommonXPU::test_compare_cpu_nn_functional_conv2d_xpu_float32\n";
  issue.labels = {"module: inductor", "bug"};
  const auto result = lb::label_issue(issue, tax);
  (void)perftriage::dump_json(lb::to_json(result));
  (void)lb::render_comment(issue, result);
  return 0;
}
