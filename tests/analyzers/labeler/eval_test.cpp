// The evaluation set: tests/fixtures/labeler/eval/*.md with expected labels in expected.json, written by the
// rules of shared/domain/issue-labels.md. Per-axis precision and recall are printed; every axis must reach
// precision >= 0.95 and recall >= 0.9.
#include <cstdio>
#include <map>
#include <set>

#include "helpers.hpp"

namespace perftriage::analyzers::labeler::testing {
namespace {

struct Tally {
  int tp = 0, fp = 0, fn = 0;
  [[nodiscard]] double precision() const { return tp + fp == 0 ? 1.0 : static_cast<double>(tp) / (tp + fp); }
  [[nodiscard]] double recall() const { return tp + fn == 0 ? 1.0 : static_cast<double>(tp) / (tp + fn); }
};

std::string axis_of(const Taxonomy& t, const std::string& label) {
  auto p = t.parse_label(label);
  return p ? p->first : "?";
}

TEST(LabelerEval, PerAxisPrecisionAndRecall) {
  const auto& tax = xpu_taxonomy();
  auto expected = nlohmann::json::parse(read_fixture("labeler/eval/expected.json"));
  ASSERT_GE(expected.size(), 30u);
  std::map<std::string, Tally> tally;
  for (const char* axis : {"test", "module", "priority", "hw", "os", "dependency", "dtype", "symptom", "triage"})
    tally[axis];
  int exact = 0;
  for (const auto& e : expected) {
    const auto file = e["file"].get<std::string>();
    auto r = label(e["title"].get<std::string>(), read_fixture("labeler/eval/" + file));
    std::set<std::pair<std::string, std::string>> want, got;
    for (const auto& l : e["labels"]) want.insert({axis_of(tax, l.get<std::string>()), l.get<std::string>()});
    want.insert({"priority", e["priority"].get<std::string>()});
    for (const auto& l : r.labels) got.insert({axis_of(tax, l), l});
    if (auto p = value_of(r, "priority"); !p.empty()) got.insert({"priority", p});
    for (const auto& g : got) {
      auto& t = tally[g.first];
      if (want.count(g))
        ++t.tp;
      else {
        ++t.fp;
        ADD_FAILURE() << file << ": unexpected " << g.first << " = " << g.second;
      }
    }
    for (const auto& w : want)
      if (!got.count(w)) {
        ++tally[w.first].fn;
        ADD_FAILURE() << file << ": missing " << w.first << " = " << w.second;
      }
    exact += want == got ? 1 : 0;
  }
  std::printf("\nlabeler evaluation: %zu issues, %d labelled exactly\n", expected.size(), exact);
  std::printf("%-12s %9s %9s %5s %5s %5s\n", "axis", "precision", "recall", "tp", "fp", "fn");
  for (const auto& [axis, t] : tally) {
    std::printf("%-12s %9.3f %9.3f %5d %5d %5d\n", axis.c_str(), t.precision(), t.recall(), t.tp, t.fp, t.fn);
    EXPECT_GE(t.precision(), 0.95) << axis;
    EXPECT_GE(t.recall(), 0.9) << axis;
  }
}

}  // namespace
}  // namespace perftriage::analyzers::labeler::testing
