// label_issue: runs the axis rules in order and turns their decisions into rows and labels.
#include "analyzers/labeler/labeler.hpp"

#include <algorithm>
#include <set>
#include <string>

#include <fmt/format.h>

#include "analyzers/labeler/model.hpp"
#include "analyzers/labeler/rules.hpp"
#include "common/strings.hpp"
#include "common/utf8.hpp"

namespace perftriage::analyzers::labeler {

namespace {

// Whether `label` is already a row's value or follows from one through the taxonomy's implications.
bool implied_by_rows(const LabelResult& r, const Taxonomy& taxonomy, const std::string& label) {
  auto in_rows = [&](const std::string& l) {
    return std::any_of(r.axes.begin(), r.axes.end(), [&](const AxisRow& a) { return a.value == l; });
  };
  if (in_rows(label)) return true;
  return std::any_of(taxonomy.implies.begin(), taxonomy.implies.end(), [&](const Implication& imp) {
    return imp.add == label && std::any_of(imp.when.begin(), imp.when.end(), in_rows);
  });
}

// The tracker's habit (LabelWeights::gate): a value the rules gave whose label the model puts under its gate moves to
// r.withheld, with the probability and the gate in its reason. Values already on the issue (`on_issue`, canonical)
// and defaults are not gated.
void withhold_gated(LabelResult& r, const std::vector<ModelVote>& votes, const LabelModel& model,
                    const std::set<std::string>& on_issue) {
  std::vector<AxisRow> kept;
  for (auto& a : r.axes) {
    const auto w = std::find_if(model.labels.begin(), model.labels.end(),
                                [&](const LabelWeights& lw) { return lw.label == a.value && lw.gate > 0; });
    const auto v = std::find_if(votes.begin(), votes.end(), [&](const ModelVote& mv) { return mv.label == a.value; });
    if (a.layer != Origin::rules || on_issue.count(a.value) || w == model.labels.end() || v == votes.end() ||
        v->p >= w->gate) {
      kept.push_back(std::move(a));
      continue;
    }
    a.reason = fmt::format(
        "Withheld: the tracker sets it on issues like this one with p {:.2f}, under its gate {:.2f}. "
        "The rules said: {}",
        v->p, w->gate, a.reason);
    a.layer = Origin::gate;
    r.withheld.push_back(std::move(a));
  }
  r.axes = std::move(kept);
}

// The learned layer after the rules (see Layers): with `gated_except` (Layers::gated: the issue's own labels) first
// withholds the gated rules values, then fills a single-valued axis that has no value or only its default, and adds
// values of multi-valued axes, each at or above the model's threshold.
void apply_model(LabelResult& r, const std::vector<ModelVote>& votes, const Taxonomy& taxonomy, const LabelModel& model,
                 const std::set<std::string>* gated_except, double threshold) {
  std::set<std::string> filled;  // single-valued axes the model decided here
  if (gated_except) withhold_gated(r, votes, model, *gated_except);
  for (const auto& v : votes) {
    if (v.p < threshold) break;  // highest first
    const std::string reason = "Learned from the tracker: " + v.reason() + ".";
    if (v.axis == "implied") {  // a label the taxonomy implies (pytorch's oncall: pt2), learned on its own
      if (!implied_by_rows(r, taxonomy, v.label)) r.axes.push_back({v.axis, v.label, reason, Origin::model, {}});
      continue;
    }
    const auto* spec = taxonomy.axis(v.axis);
    if (!spec || !spec->applied || filled.count(v.axis)) continue;
    auto same_axis = std::find_if(r.axes.begin(), r.axes.end(), [&](const AxisRow& a) { return a.axis == v.axis; });
    if (!spec->multi) {
      if (same_axis != r.axes.end() && same_axis->layer != Origin::fallback) continue;  // the rules decided
      filled.insert(v.axis);
      if (same_axis != r.axes.end()) {
        *same_axis = {v.axis, v.label, reason, Origin::model, {}};
        continue;
      }
    } else if (std::any_of(r.axes.begin(), r.axes.end(),
                           [&](const AxisRow& a) { return a.axis == v.axis && a.value == v.label; })) {
      continue;
    }
    r.axes.push_back({v.axis, v.label, reason, Origin::model, {}});
  }
  // A default is a guess, not a rule's decision: where the model knows that value and did not confirm it (or pick
  // another), the tracker would most likely leave the axis unset, so the default goes.
  std::erase_if(r.axes, [&](const AxisRow& a) {
    if (a.layer != Origin::fallback || filled.count(a.axis)) return false;
    return std::any_of(model.labels.begin(), model.labels.end(),
                       [&](const LabelWeights& w) { return w.label == a.value; });
  });
}

// Layers::tiered: a value the rules or the model gave stays applied when its calibrated probability reaches the model's
// apply_at; the others become suggestions with that probability in their reason. Values on the issue are the
// maintainers' and stay; native fields (an axis that is never a label) are not labels to apply or suggest.
void apply_tiers(LabelResult& r, const std::vector<ModelVote>& votes, const Taxonomy& taxonomy, const LabelModel& model,
                 const std::set<std::string>& on_issue) {
  std::vector<AxisRow> kept;
  for (auto& a : r.axes) {
    const auto* spec = taxonomy.axis(a.axis);
    if (a.layer == Origin::issue || on_issue.count(a.value) || (spec && !spec->applied)) {
      kept.push_back(std::move(a));
      continue;
    }
    const auto v = std::find_if(votes.begin(), votes.end(), [&](const ModelVote& mv) { return mv.label == a.value; });
    const auto* cal = model.calibrated(a.value, a.layer == Origin::model ? Origin::model : Origin::rules);
    a.p = cal ? cal->at(v == votes.end() ? 1.0 : v->p) : 0.0;
    if (cal && *a.p >= model.apply_at) {
      kept.push_back(std::move(a));
      continue;
    }
    a.reason = cal ? fmt::format("Likely, p {:.2f} (applied from {:.2f}). {}", *a.p, model.apply_at, a.reason)
                   : "Never proposed on the tracker's history, so not applied. " + a.reason;
    a.layer = Origin::suggested;
    r.suggested.push_back(std::move(a));
  }
  r.axes = std::move(kept);
}

// The learned layer after the rules, as `layers` asks (gated, tiered or plain).
void apply_learned(LabelResult& r, const IssueInput& issue, const Taxonomy& taxonomy, const Context& c, Layers layers) {
  std::set<std::string> on_issue;  // the issue's own labels, canonical: never withheld
  for (const auto& [axis, found] : c.existing)
    for (const auto& [key, spelled] : found)
      if (auto v = taxonomy.label_for(axis, key)) on_issue.insert(*v);
  const auto& model = *taxonomy.model;
  const auto votes = predict(model, issue.title, issue.body);
  const bool tiered = layers == Layers::tiered;
  apply_model(r, votes, taxonomy, model, layers == Layers::gated ? &on_issue : nullptr,
              tiered ? std::min(model.suggest_from, model.threshold) : model.threshold);
  if (tiered) apply_tiers(r, votes, taxonomy, model, on_issue);
  r.need_split = std::any_of(r.axes.begin(), r.axes.end(), [](const AxisRow& a) { return a.axis == "triage"; });
}

LabelResult run_rules(const IssueInput& issue, const Taxonomy& taxonomy, const EvidenceLookup& evidence, Budget* budget,
                      Layers layers) {
  Context c = build_context(issue, taxonomy, evidence, budget);
  LabelResult r;
  r.cases = c.scan.cases;
  r.analyzed_case = r.cases.empty() ? 0 : 1;

  check(budget);
  auto symptoms = decide_symptoms(c);  // sets the flags the other rules read
  check(budget);
  auto module = decide_module(c);
  check(budget);
  auto split = decide_need_split(c);
  check(budget);
  r.need_split = split.has_value();

  auto add = [&](std::string_view axis, const std::optional<Decision>& d) {
    if (!d) return;
    auto value = taxonomy.label_for(axis, d->key);
    if (!value) return;  // this tracker has no such value
    for (const auto& row : r.axes)
      if (row.axis == axis && row.value == *value) return;
    if (d->suggest) {
      r.suggested.push_back({std::string(axis), *value, d->reason, Origin::suggested, {}});
      return;
    }
    r.axes.push_back({std::string(axis),
                      *value,
                      d->reason,
                      d->on_issue   ? Origin::issue
                      : d->fallback ? Origin::fallback
                                    : Origin::rules,
                      {}});
  };
  add("type", decide_type(c));
  add("test", decide_test(c));
  add("module", module);
  add("priority", decide_priority(c, module && !module->suggest ? module : std::nullopt));
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
    for (const auto& [key, spelled] : found) add(axis, set_on_issue(key, spelled));
  }
  if (layers == Layers::model) r.axes.clear();
  if (layers != Layers::rules && taxonomy.model) {
    check(budget);
    apply_learned(r, issue, taxonomy, c, layers);
  }

  for (const auto& row : r.axes) {
    const auto* spec = taxonomy.axis(row.axis);
    if (spec && !spec->applied) continue;
    if (std::find(r.labels.begin(), r.labels.end(), row.value) == r.labels.end()) r.labels.push_back(row.value);
  }
  // A suggested value still says what kind of issue it is: `torch.compile` does not decide pytorch's module, but it
  // does make the issue pt2's (module: inductor suggested, oncall: pt2 applied).
  for (const auto& imp : taxonomy.implies) {
    bool fire = std::any_of(imp.when.begin(), imp.when.end(), [&](const std::string& w) {
      return std::find(r.labels.begin(), r.labels.end(), w) != r.labels.end() ||
             std::any_of(r.suggested.begin(), r.suggested.end(), [&](const AxisRow& s) { return s.value == w; });
    });
    if (fire && std::find(r.labels.begin(), r.labels.end(), imp.add) == r.labels.end()) r.labels.push_back(imp.add);
  }
  check(budget);
  r.root_cause = root_cause(c, r.need_split);
  check(budget);
  return r;
}

std::string budget_text(std::chrono::microseconds budget) {
  const auto us = budget.count();
  if (us % 1000 == 0) return std::to_string(us / 1000) + " ms";
  return format_number(static_cast<double>(us) / 1000.0, 3) + " ms";
}

}  // namespace

IssueInput bound_input(const IssueInput& issue, const LabelSettings& settings, Truncation& truncated) {
  IssueInput in;
  in.repo = issue.repo;
  in.number = issue.number;
  in.title = cut_utf8(issue.title, settings.max_title_chars, std::string_view::npos, truncated.title);
  in.body = cut_utf8(issue.body, settings.max_body_chars, std::string_view::npos, truncated.body);
  for (const auto& label : issue.labels) {
    if (in.labels.size() == settings.max_labels) {
      truncated.labels = true;
      break;
    }
    // Counting stops early: a 1 MB "label" costs no more than a short one.
    if (label.size() > settings.max_label_chars * 4 || utf8_chars(label) > settings.max_label_chars) {
      truncated.labels = true;
      continue;
    }
    in.labels.push_back(label);
  }
  return in;
}

Result<LabelResult> label_issue_within(const IssueInput& issue, const Taxonomy& taxonomy,
                                       const EvidenceLookup& evidence, const LabelSettings& settings) {
  Budget budget(settings.cpu_budget);
  try {
    budget.check();
    Truncation truncated;
    const auto in = bound_input(issue, settings, truncated);
    auto r = run_rules(in, taxonomy, evidence, &budget, settings.layers);
    r.truncated = truncated;
    return r;
  } catch (const BudgetExceeded&) {
    return make_error(
        ErrorKind::unprocessable, "label_budget_exceeded",
        "labeling took more than its CPU budget of " + budget_text(settings.cpu_budget) + "; shorten the issue body");
  }
}

std::string_view to_string(Origin o) {
  switch (o) {
    case Origin::rules: return "rules";
    case Origin::fallback: return "default";
    case Origin::issue: return "issue";
    case Origin::model: return "model";
    case Origin::gate: return "gate";
    case Origin::suggested: break;
  }
  return "suggested";
}

std::optional<Origin> origin_from_name(std::string_view name) {
  for (auto o : {Origin::rules, Origin::fallback, Origin::issue, Origin::model, Origin::gate, Origin::suggested})
    if (name == to_string(o)) return o;
  return std::nullopt;
}

std::string_view layers_name(Layers l) {
  switch (l) {
    case Layers::rules: return "rules";
    case Layers::model: return "model";
    case Layers::both: return "both";
    case Layers::gated: return "gated";
    case Layers::tiered: break;
  }
  return "tiered";
}

std::optional<Layers> layers_from_name(std::string_view name) {
  for (auto l : kAllLayers)
    if (name == layers_name(l)) return l;
  return std::nullopt;
}

std::string layers_names_text(std::string_view also) {
  std::vector<std::string_view> names;
  for (auto l : kAllLayers) names.push_back(layers_name(l));
  if (!also.empty()) names.push_back(also);
  return join_or(names);
}

LabelResult label_issue(const IssueInput& issue, const Taxonomy& taxonomy, const EvidenceLookup& evidence,
                        Layers layers) {
  Truncation truncated;
  const auto in = bound_input(issue, LabelSettings{}, truncated);
  auto r = run_rules(in, taxonomy, evidence, nullptr, layers);
  r.truncated = truncated;
  return r;
}

}  // namespace perftriage::analyzers::labeler
