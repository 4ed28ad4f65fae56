// label_issue: runs the axis rules in order and turns their decisions into rows and labels.
#include "analyzers/labeler/labeler.hpp"

#include <algorithm>
#include <set>

#include "analyzers/labeler/rules.hpp"

namespace perftriage::analyzers::labeler {

LabelResult label_issue(const IssueInput& issue, const Taxonomy& taxonomy, const EvidenceLookup& evidence) {
  Context c = build_context(issue, taxonomy, evidence);
  LabelResult r;
  r.cases = c.scan.cases;
  r.analyzed_case = r.cases.empty() ? 0 : 1;

  auto symptoms = decide_symptoms(c);  // sets the flags the other rules read
  auto module = decide_module(c);
  auto split = decide_need_split(c);
  r.need_split = split.has_value();

  auto add = [&](std::string_view axis, const std::optional<Decision>& d) {
    if (!d) return;
    auto value = taxonomy.label_for(axis, d->key);
    if (!value) return;  // this tracker has no such value
    for (const auto& row : r.axes)
      if (row.axis == axis && row.value == *value) return;
    r.axes.push_back({std::string(axis), *value, d->reason});
  };
  add("type", decide_type(c));
  add("test", decide_test(c));
  add("module", module);
  add("priority", decide_priority(c, module));
  add("hw", decide_hw(c));
  add("os", decide_os(c));
  add("dependency", decide_dependency(c));
  for (const auto& d : decide_dtype(c)) add("dtype", d);
  for (const auto& d : symptoms) add("symptom", d);
  add("triage", split);
  // Values a human already set on a multi-valued axis stay.
  for (const auto& [axis, found] : c.existing) {
    const auto* spec = taxonomy.axis(axis);
    if (!spec || !spec->multi) continue;
    for (const auto& [key, spelled] : found) add(axis, Decision{key, "Set on the issue (" + quote(spelled) + ")."});
  }

  for (const auto& row : r.axes) {
    const auto* spec = taxonomy.axis(row.axis);
    if (spec && !spec->applied) continue;
    if (std::find(r.labels.begin(), r.labels.end(), row.value) == r.labels.end()) r.labels.push_back(row.value);
  }
  for (const auto& imp : taxonomy.implies) {
    bool fire = std::any_of(imp.when.begin(), imp.when.end(), [&](const std::string& w) {
      return std::find(r.labels.begin(), r.labels.end(), w) != r.labels.end();
    });
    if (fire && std::find(r.labels.begin(), r.labels.end(), imp.add) == r.labels.end()) r.labels.push_back(imp.add);
  }
  r.root_cause = root_cause(c, r.need_split);
  return r;
}

}  // namespace perftriage::analyzers::labeler
