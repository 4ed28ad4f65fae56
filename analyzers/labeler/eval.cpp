// label-eval: the labeler scored against the labels a tracker set (see eval.hpp).
#include "analyzers/labeler/eval.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "analyzers/labeler/labeler.hpp"
#include "analyzers/labeler/model.hpp"
#include "analyzers/labeler/text.hpp"

namespace perftriage::analyzers::labeler {
namespace {

using nlohmann::json;

constexpr std::string_view kImplied = "implied";

double ratio(int num, int den) { return den == 0 ? 1.0 : static_cast<double>(num) / den; }

Error bad_line(const std::string& file, std::size_t line, std::string message) {
  auto e = make_error(ErrorKind::invalid_input, "bad_eval_set", std::move(message));
  e.file = file;
  e.line = static_cast<int>(line);
  return e;
}

Result<EvalIssue> parse_issue(const json& j, const std::string& file, std::size_t line) {
  if (!j.is_object()) return bad_line(file, line, "each line is one JSON object");
  EvalIssue is;
  try {
    is.repo = j.value("repo", std::string{});
    is.url = j.value("url", std::string{});
    is.title = j.value("title", std::string{});
    is.body = j.value("body", std::string{});
    is.number = j.value("number", std::int64_t{0});
    if (!j.contains("labels") || !j["labels"].is_array())
      return bad_line(file, line, "\"labels\" must be an array of strings");
    for (const auto& l : j["labels"]) is.labels.push_back(l.get<std::string>());
  } catch (const json::exception& ex) {
    return bad_line(file, line, std::string("a field has the wrong type: ") + ex.what());
  }
  if (is.title.empty()) return bad_line(file, line, "an issue needs a \"title\"");
  return is;
}

}  // namespace

std::optional<std::pair<std::string, std::string>> tracker_label(const Taxonomy& t, std::string_view label) {
  if (auto p = t.parse_label(label)) {
    const auto* spec = t.axis(p->first);
    if (!spec || !spec->applied) return std::nullopt;  // a native field (type, priority), never a label
    return std::pair{p->first, *t.label_for(p->first, p->second)};
  }
  const auto want = lower(trim(label));
  for (const auto& a : t.axes)  // the "*" value: one label for every key (pytorch's module: xpu)
    for (const auto& [k, v] : a.values)
      if (k == "*" && a.applied && lower(v) == want) return std::pair{a.name, v};
  for (const auto& imp : t.implies)
    if (lower(imp.add) == want) return std::pair{std::string(kImplied), imp.add};
  return std::nullopt;
}

namespace {

using AxisSets = std::map<std::string, std::set<std::string>>;  // axis -> labels

struct Tallies {
  std::map<std::string, EvalScore> axes, labels;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::int64_t>> confusions;
};

void score_axis(Tallies& t, const std::string& axis, const AxisSpec* spec, const std::set<std::string>& want,
                const std::set<std::string>& got, const std::set<std::string>& suggested) {
  auto& a = t.axes[axis];
  for (const auto& g : got) {
    auto& l = t.labels[g];
    l.axis = axis;
    if (want.count(g)) {
      ++a.tp, ++l.tp;
    } else {
      ++a.fp, ++l.fp;
      if (spec ? !spec->judged(g, want) : want.empty()) ++a.fp_unset, ++l.fp_unset;
    }
  }
  for (const auto& w : want)
    if (!got.count(w)) {
      auto& l = t.labels[w];
      l.axis = axis;
      ++a.fn, ++l.fn;
      if (suggested.count(w)) ++a.fn_suggested, ++l.fn_suggested;
    }
}

// Scores one issue into `t` and returns its differences.
EvalIssueResult score_issue(const EvalIssue& is, const Taxonomy& tax, Layers layers, Tallies& t, EvalReport& report) {
  EvalIssueResult out;
  out.number = is.number;
  out.title = is.title;
  AxisSets want, got;
  for (const auto& l : is.labels) {
    auto k = tracker_label(tax, l);
    if (!k) {
      out.ignored.push_back(l);
      ++report.ignored[l];
      continue;
    }
    if (k->second != l) report.legacy[l] = k->second;
    if (want[k->first].insert(k->second).second) out.expected.push_back(k->second);
  }
  IssueInput in;  // title + body only: the tracker's labels are the answer, never the input
  in.title = is.title;
  in.body = is.body;
  in.repo = is.repo.empty() ? tax.repo : is.repo;
  in.number = is.number;
  const auto result = label_issue(in, tax, {}, layers);
  for (const auto& l : result.labels) {
    auto k = tracker_label(tax, l);
    if (k && got[k->first].insert(k->second).second) out.given.push_back(k->second);
  }
  AxisSets suggested;
  for (const auto& row : result.suggested)
    if (auto k = tracker_label(tax, row.value)) suggested[k->first].insert(k->second);
  std::set<std::string> axes;
  for (const auto& [a, _] : want) axes.insert(a);
  for (const auto& [a, _] : got) axes.insert(a);
  for (const auto& a : axes) {
    const auto& w = want[a];
    const auto& g = got[a];
    const auto* spec = tax.axis(a);
    score_axis(t, a, spec, w, g, suggested[a]);
    for (const auto& x : w)
      if (!g.count(x)) out.missing.push_back(x);
    for (const auto& x : g)
      if (!w.count(x)) out.extra.push_back(x);
    if (!spec || spec->multi || w.empty()) continue;
    for (const auto& x : g) {
      if (w.count(x)) continue;
      out.wrong_single = true;
      for (const auto& e : w)
        if (!g.count(e)) t.confusions[{a, x, e}].push_back(is.number);
    }
  }
  return out;
}

}  // namespace

double EvalScore::precision() const { return ratio(tp, tp + fp); }
double EvalScore::recall() const { return ratio(tp, tp + fn); }
double EvalScore::precision_set() const { return ratio(tp, tp + fp - fp_unset); }
double EvalScore::recall_with_suggested() const { return ratio(tp + fn_suggested, tp + fn); }

Result<TimeSplit> parse_split(std::string_view text, const std::string& file) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object())
    return make_error(ErrorKind::invalid_input, "bad_split", "a split is a JSON object {\"owner/name\": N}", file);
  TimeSplit out;
  for (const auto& [repo, n] : j.items()) {
    if (repo.rfind('_', 0) == 0) continue;
    if (!n.is_number_integer() || n.get<std::int64_t>() < 1)
      return make_error(ErrorKind::invalid_input, "bad_split", "'" + repo + "' must map to an issue number", file);
    out.emplace(repo, n.get<std::int64_t>());
  }
  return out;
}

std::optional<SplitPart> split_part_from_name(std::string_view name) {
  if (name == "older") return SplitPart::older;
  if (name == "newer") return SplitPart::newer;
  return std::nullopt;
}

Result<std::vector<EvalIssue>> split_part(std::vector<EvalIssue> set, const TimeSplit& split, SplitPart part) {
  std::vector<EvalIssue> out;
  for (auto& is : set) {
    const auto it = split.find(is.repo);
    if (it == split.end())
      return make_error(ErrorKind::invalid_input, "bad_split",
                        "the split does not name " + is.repo + " (issue #" + std::to_string(is.number) + ")");
    if ((is.number >= it->second) == (part == SplitPart::newer)) out.push_back(std::move(is));
  }
  return out;
}

Result<std::vector<EvalIssue>> parse_eval_set(std::string_view text, const std::string& file) {
  std::vector<EvalIssue> out;
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (trim(lines[i]).empty()) continue;
    auto j = json::parse(lines[i], nullptr, false);
    if (j.is_discarded()) return bad_line(file, i + 1, "not a JSON object");
    PT_ASSIGN(auto is, parse_issue(j, file, i + 1));
    out.push_back(std::move(is));
  }
  if (out.empty()) return make_error(ErrorKind::invalid_input, "bad_eval_set", "no issues in the set", file);
  return out;
}

Result<Taxonomy> taxonomy_for_repo(std::string_view repo) {
  for (const auto& name : builtin_taxonomies()) {
    PT_ASSIGN(auto t, load_taxonomy(name));
    if (lower(t.repo) == lower(repo)) return t;
  }
  return make_error(ErrorKind::not_found, "unknown_taxonomy",
                    "no built-in taxonomy for repository '" + std::string(repo) + "' (give --taxonomy)");
}

EvalReport evaluate_labeler(const std::vector<EvalIssue>& set, const Taxonomy& taxonomy_in, Layers layers,
                            const LabelModel* model) {
  Taxonomy taxonomy = taxonomy_in;
  if (layers == Layers::rules)
    taxonomy.model.reset();
  else if (model)  // not owned: the caller's model outlives this call
    taxonomy.model = std::shared_ptr<const LabelModel>(std::shared_ptr<void>{}, model);
  const LabelModel* seen = taxonomy.model.get();
  EvalReport r;
  r.taxonomy = taxonomy.name;
  r.layers = layers;
  Tallies t;
  for (const auto& a : taxonomy.axes)
    if (a.applied) t.axes[a.name];
  if (!taxonomy.implies.empty()) t.axes[std::string(kImplied)];
  for (const auto& is : set) {
    if (seen && seen->saw(is.number) && (seen->repo.empty() || lower(seen->repo) == lower(is.repo))) {
      ++r.skipped_seen;  // the model learned from this issue: scoring it would measure memory, not labeling
      continue;
    }
    ++r.issues;
    r.per_issue.push_back(score_issue(is, taxonomy, layers, t, r));
    r.wrong_single += r.per_issue.back().wrong_single ? 1 : 0;
  }
  for (const auto& a : taxonomy.axes)  // file order
    if (auto it = t.axes.find(a.name); it != t.axes.end()) {
      it->second.name = a.name;
      it->second.axis = a.name;
      r.axes.push_back(it->second);
    }
  if (auto it = t.axes.find(std::string(kImplied)); it != t.axes.end()) {
    it->second.name = it->second.axis = std::string(kImplied);
    r.axes.push_back(it->second);
  }
  for (auto& [name, s] : t.labels) {
    s.name = name;
    r.labels.push_back(s);
  }
  std::stable_sort(r.labels.begin(), r.labels.end(), [](const EvalScore& a, const EvalScore& b) {
    return std::pair(a.axis, b.support()) < std::pair(b.axis, a.support());
  });
  for (auto& [key, issues] : t.confusions)
    r.confusions.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), issues});
  std::stable_sort(r.confusions.begin(), r.confusions.end(),
                   [](const EvalConfusion& a, const EvalConfusion& b) { return a.issues.size() > b.issues.size(); });
  return r;
}

namespace {

json score_json(const EvalScore& s) {
  return {{"name", s.name},
          {"axis", s.axis},
          {"precision", s.precision()},
          {"precision_set", s.precision_set()},
          {"recall", s.recall()},
          {"recall_with_suggested", s.recall_with_suggested()},
          {"support", s.support()},
          {"given", s.tp + s.fp},
          {"tp", s.tp},
          {"fp", s.fp},
          {"fp_unset", s.fp_unset},
          {"fn", s.fn}};
}

std::string numbers(const std::vector<std::int64_t>& v, std::size_t max = 8) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < max; ++i) s += (i ? ", #" : "#") + std::to_string(v[i]);
  if (v.size() > max) s += ", ...";
  return s;
}

void score_rows(std::string& out, const char* head, const std::vector<EvalScore>& rows, bool skip_empty) {
  std::size_t w = std::string_view(head).size();
  for (const auto& s : rows) w = std::max(w, s.name.size());
  out += fmt::format("{:<{}}  {:>9}  {:>6}  {:>6}  {:>6}  {:>7}  {:>5}  {:>4} {:>4} {:>4}\n", head, w, "precision",
                     "p@set", "recall", "r+sugg", "support", "given", "tp", "fp", "fn");
  for (const auto& s : rows) {
    if (skip_empty && s.support() == 0 && s.tp + s.fp == 0) continue;
    out += fmt::format("{:<{}}  {:>9.3f}  {:>6.3f}  {:>6.3f}  {:>6.3f}  {:>7}  {:>5}  {:>4} {:>4} {:>4}\n", s.name, w,
                       s.precision(), s.precision_set(), s.recall(), s.recall_with_suggested(), s.support(),
                       s.tp + s.fp, s.tp, s.fp, s.fn);
  }
}

}  // namespace

json to_json(const EvalReport& r, bool with_issues) {
  json j = {{"taxonomy", r.taxonomy},
            {"layers", layers_name(r.layers)},
            {"issues", r.issues},
            {"skipped_seen", r.skipped_seen},
            {"wrong_single", r.wrong_single},
            {"wrong_single_share", r.wrong_single_share()},
            {"axes", json::array()},
            {"labels", json::array()},
            {"confusions", json::array()},
            {"ignored", r.ignored},
            {"legacy", r.legacy}};
  for (const auto& s : r.axes) j["axes"].push_back(score_json(s));
  for (const auto& s : r.labels) j["labels"].push_back(score_json(s));
  for (const auto& c : r.confusions)
    j["confusions"].push_back({{"axis", c.axis}, {"given", c.given}, {"expected", c.expected}, {"issues", c.issues}});
  if (with_issues) {
    j["per_issue"] = json::array();
    for (const auto& i : r.per_issue)
      j["per_issue"].push_back({{"number", i.number},
                                {"title", i.title},
                                {"expected", i.expected},
                                {"given", i.given},
                                {"missing", i.missing},
                                {"extra", i.extra},
                                {"ignored", i.ignored},
                                {"wrong_single", i.wrong_single}});
  }
  return j;
}

std::string render_text(const EvalReport& r, bool with_issues) {
  std::string out =
      fmt::format("label-eval: taxonomy {}, layers {}, {} issues{}; wrong single-valued value on {} ({:.1f}%)\n\n",
                  r.taxonomy, layers_name(r.layers), r.issues,
                  r.skipped_seen ? fmt::format(" ({} skipped: the model was trained on them)", r.skipped_seen) : "",
                  r.wrong_single, 100.0 * r.wrong_single_share());
  score_rows(out, "axis", r.axes, false);
  out += "\n";
  score_rows(out, "label", r.labels, true);
  out += "\n(p@set: precision on the issues where the tracker set a value of the axis)\n";
  if (!r.confusions.empty()) out += "\nconfusions of single-valued axes:\n";
  for (const auto& c : r.confusions)
    out += fmt::format("  {} given where the tracker says {}: {} issue{} ({})\n", c.given, c.expected, c.issues.size(),
                       c.issues.size() == 1 ? "" : "s", numbers(c.issues));
  if (!r.legacy.empty()) out += "\nlegacy spellings mapped:";
  for (const auto& [from, to] : r.legacy) out += " `" + from + "` -> `" + to + "`;";
  if (!r.legacy.empty()) out += "\n";
  std::vector<std::pair<std::string, int>> ign(r.ignored.begin(), r.ignored.end());
  std::stable_sort(ign.begin(), ign.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  if (!ign.empty()) out += "\nignored (outside every axis):";
  for (const auto& [l, n] : ign) out += fmt::format(" `{}` ({});", l, n);
  if (!ign.empty()) out += "\n";
  if (with_issues) {
    out += "\nissues with differences:\n";
    for (const auto& i : r.per_issue) {
      if (i.missing.empty() && i.extra.empty()) continue;
      out += fmt::format("  #{}{} {}\n      missing: {}  extra: {}\n", i.number, i.wrong_single ? " (wrong)" : "",
                         i.title.substr(0, 100), join(i.missing, ", "), join(i.extra, ", "));
    }
  }
  return out;
}

namespace {

// Row name -> its score in each report (null where a report lacks it), in first-seen order.
std::vector<std::pair<std::string, std::vector<const EvalScore*>>> side_by_side(const std::vector<EvalReport>& reports,
                                                                                bool axes) {
  std::vector<std::pair<std::string, std::vector<const EvalScore*>>> rows;
  for (std::size_t i = 0; i < reports.size(); ++i)
    for (const auto& s : axes ? reports[i].axes : reports[i].labels) {
      if (!axes && s.support() == 0 && s.tp + s.fp == 0) continue;
      auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& row) { return row.first == s.name; });
      if (it == rows.end()) it = rows.insert(rows.end(), {s.name, std::vector<const EvalScore*>(reports.size())});
      it->second[i] = &s;
    }
  return rows;
}

void comparison_rows(std::string& out, const char* head, const std::vector<EvalReport>& reports, bool axes) {
  const auto rows = side_by_side(reports, axes);
  std::size_t w = std::string_view(head).size();
  for (const auto& [name, _] : rows) w = std::max(w, name.size());
  out += fmt::format("{:<{}}  {:>7}", head, w, "support");
  for (const auto& r : reports) out += fmt::format("  {:>13}", std::string(layers_name(r.layers)) + " P / R");
  out += "\n";
  for (const auto& [name, scores] : rows) {
    int support = 0;
    for (const auto* s : scores)
      if (s) support = std::max(support, s->support());
    out += fmt::format("{:<{}}  {:>7}", name, w, support);
    for (const auto* s : scores)
      out += s ? fmt::format("  {:>6.3f}/{:.3f}", s->precision(), s->recall()) : fmt::format("  {:>13}", "-");
    out += "\n";
  }
}

}  // namespace

std::string render_comparison(const std::vector<EvalReport>& reports) {
  if (reports.empty()) return {};
  std::string out =
      fmt::format("label-eval: taxonomy {}, layers side by side (precision / recall)\n", reports.front().taxonomy);
  for (const auto& r : reports)
    out += fmt::format("  {}: {} issues scored{}, wrong single-valued value on {} ({:.1f}%)\n", layers_name(r.layers),
                       r.issues, r.skipped_seen ? fmt::format(" ({} skipped: trained on)", r.skipped_seen) : "",
                       r.wrong_single, 100.0 * r.wrong_single_share());
  out += "\n";
  comparison_rows(out, "axis", reports, true);
  out += "\n";
  comparison_rows(out, "label", reports, false);
  return out;
}

namespace {

void check_rows(const std::vector<EvalScore>& rows, const json& want, const std::string& prefix,
                std::vector<std::string>& fails) {
  if (!want.is_object()) return;
  for (const auto& item : want.items()) {
    const std::string name = item.key();  // not a structured binding: clang before 16 cannot capture one
    const json& floors = item.value();
    auto it = std::find_if(rows.begin(), rows.end(), [&](const EvalScore& s) { return s.name == name; });
    if (it == rows.end()) {
      fails.push_back(prefix + name + ": no such row in the report");
      continue;
    }
    for (const auto& [metric, floor] : floors.items()) {
      if (!floor.is_number()) continue;
      double v = metric == "precision"               ? it->precision()
                 : metric == "recall"                ? it->recall()
                 : metric == "precision_set"         ? it->precision_set()
                 : metric == "recall_with_suggested" ? it->recall_with_suggested()
                                                     : -1;
      if (v < 0) {
        fails.push_back(prefix + name + ": unknown metric " + metric);
      } else if (v + 1e-9 < floor.get<double>()) {
        fails.push_back(fmt::format("{}{} {} {:.3f} < floor {:.3f}", prefix, name, metric, v, floor.get<double>()));
      }
    }
  }
}

}  // namespace

std::vector<std::string> check_floors(const EvalReport& r, const json& floors) {
  std::vector<std::string> fails;
  const auto key = r.layers == Layers::rules ? r.taxonomy : r.taxonomy + "/" + std::string(layers_name(r.layers));
  if (!floors.is_object() || !floors.contains(key)) return fails;
  const auto& f = floors[key];
  const auto prefix = key + ": ";
  if (f.contains("axes")) check_rows(r.axes, f["axes"], prefix, fails);
  if (f.contains("labels")) check_rows(r.labels, f["labels"], prefix, fails);
  if (f.contains("max_wrong_single_share") && f["max_wrong_single_share"].is_number() &&
      r.wrong_single_share() > f["max_wrong_single_share"].get<double>() + 1e-9)
    fails.push_back(fmt::format("{}wrong single-valued share {:.3f} > max {:.3f}", prefix, r.wrong_single_share(),
                                f["max_wrong_single_share"].get<double>()));
  return fails;
}

}  // namespace perftriage::analyzers::labeler
