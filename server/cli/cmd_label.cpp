// perftriage label [--json] --title T --body-file F [--labels a,b] [--taxonomy NAME|PATH] [--comment]
//                  [--repo owner/name] [--number N] [--layers rules|model|both|gated] [--model PATH|none]
// Each row says which layer decided it: rules, default (the taxonomy's fallback), issue (already set) or model; a
// value the rules gave and a gate withheld (--layers gated) is listed too, as layer "gate", and one whose evidence is
// too weak to apply as layer "suggested"; neither is among the labels.
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include <fmt/format.h>

#include "analyzers/labeler/labeler.hpp"
#include "analyzers/labeler/model.hpp"
#include "common/strings.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

namespace lb = perftriage::analyzers::labeler;

void print_table(const lb::LabelResult& r, std::ostream& out) {
  std::size_t w_axis = 4, w_value = 5, w_layer = 5;
  std::vector<lb::AxisRow> rows = r.axes;  // then the withheld ones, layer "gate"
  rows.insert(rows.end(), r.withheld.begin(), r.withheld.end());
  rows.insert(rows.end(), r.suggested.begin(), r.suggested.end());
  for (const auto& a : rows) {
    w_axis = std::max(w_axis, a.axis.size());
    w_value = std::max(w_value, a.value.size());
    w_layer = std::max(w_layer, lb::to_string(a.layer).size());
  }
  out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", "axis", w_axis, "value", w_value, "layer", w_layer, "reason");
  for (const auto& a : rows)
    out << fmt::format("{:<{}}  {:<{}}  {:<{}}  {}\n", a.axis, w_axis, a.value, w_value, lb::to_string(a.layer),
                       w_layer, a.reason);
  out << "\nlabels: " << (r.labels.empty() ? std::string("(none)") : join(r.labels, ", ")) << "\n";
  out << "need_split: " << (r.need_split ? "yes" : "no") << "\n";
  out << "root cause: " << r.root_cause << "\n";
  out << "cases (" << r.cases.size() << "):\n";
  for (std::size_t i = 0; i < r.cases.size(); ++i) {
    const auto& c = r.cases[i];
    out << fmt::format("  {}{}. {}", i + 1 == static_cast<std::size_t>(r.analyzed_case) ? "*" : " ", i + 1,
                       c.display());
    if (c.speedup) out << fmt::format(" (speedup {:.3f})", *c.speedup);
    if (!c.status.empty()) out << " (" << c.status << ")";
    out << "\n";
  }
}

struct LabelOptions {
  std::string title, body_file, taxonomy = "torch-xpu-ops", repo, layers = "both", model;
  std::vector<std::string> labels;
  std::int64_t number = 0;
  bool json = false, comment = false;
};

Result<int> label(const LabelOptions& o, Io io) {
  lb::IssueInput issue;
  issue.title = o.title;
  PT_ASSIGN(issue.body, read_input_file(o.body_file));
  for (const auto& list : o.labels)
    for (const auto& l : split(list, ','))
      if (auto t = trim(l); !t.empty()) issue.labels.emplace_back(t);
  PT_ASSIGN(auto taxonomy, lb::load_taxonomy(o.taxonomy));
  PT_ASSIGN(taxonomy.model, lb::model_option(o.model, taxonomy));
  const auto layers = lb::layers_from_name(o.layers);
  if (!layers)
    return make_error(ErrorKind::invalid_input, "bad_layers",
                      "--layers is " + lb::layers_names_text() + ", not '" + o.layers + "'");
  issue.repo = o.repo.empty() ? taxonomy.repo : o.repo;
  issue.number = o.number;
  auto result = lb::label_issue(issue, taxonomy, {}, *layers);
  if (o.json) {
    auto j = lb::to_json(result);
    if (o.comment) j["comment"] = lb::render_comment(issue, result);
    io.out << j.dump(2) << "\n";
  } else if (o.comment) {
    io.out << lb::render_comment(issue, result);
  } else {
    print_table(result, io.out);
  }
  return 0;
}

}  // namespace

void add_label(const Command& cmd) {
  auto o = std::make_shared<LabelOptions>();
  CLI::App& app = *cmd.app;
  app.add_option("--title", o->title, "the issue's title")->required();
  app.add_option("--body-file", o->body_file, "the issue's body (- reads standard input)")->required();
  app.add_option("--labels", o->labels, "labels it already has: a,b (repeatable)");
  app.add_option("--taxonomy", o->taxonomy, "a built-in taxonomy or a JSON file")->capture_default_str();
  app.add_option("--repo", o->repo, "owner/name (default: the taxonomy's repository)");
  app.add_option("--number", o->number, "the issue's number, for the comment");
  app.add_option(
         "--layers", o->layers,
         "rules, model, both (the rules decide first, the model fills), gated (both, then the tracker's gates) or "
         "tiered (both, applied only at a calibrated probability of apply_at or more, the rest suggested)")
      ->capture_default_str();
  app.add_option("--model", o->model, "a label model file (tracker train), or none (default: the taxonomy's own)");
  app.add_flag("--comment", o->comment, "print the comment the bot would post");
  app.add_flag("--json", o->json, "as JSON");
  cmd.on_run([o, io = cmd.io] { return [o, io] { return label(*o, io); }; });
}

}  // namespace perftriage::cli
