// perftriage label-eval FILE.jsonl... [--taxonomy NAME|PATH] [--layers rules|model|both|gated|tiered|all]
//                     [--model PATH|none] [--split FILE --part older|newer] [--json] [--issues] [--floors FILE]
// Scores the labeler against the labels a tracker set (analyzers/labeler/eval.hpp). Each issue is labeled with the
// taxonomy of its repository (intel/torch-xpu-ops -> torch-xpu-ops, pytorch/pytorch -> pytorch) unless --taxonomy
// names one for all. --layers: the rules alone, the learned model alone, both (what the bot applies; the default),
// or all three side by side; the model is the taxonomy's built-in one unless --model names a file (`tracker train`).
// Issues the model was trained on are never scored. --floors: exit 1 when a score is below its floor (CTest
// label_eval).
#include <algorithm>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>

#include "analyzers/labeler/eval.hpp"
#include "analyzers/labeler/model.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

namespace lb = perftriage::analyzers::labeler;

struct LabelEvalOptions {
  std::vector<std::string> files;
  std::string taxonomy, floors, layers = "both", model, split, part;
  bool json = false, issues = false;
};

Result<std::vector<lb::Layers>> parse_layers(const std::string& s) {
  if (s == "all") return std::vector<lb::Layers>(std::begin(lb::kAllLayers), std::end(lb::kAllLayers));
  if (auto l = lb::layers_from_name(s)) return std::vector{*l};
  return make_error(ErrorKind::invalid_input, "bad_layers",
                    "--layers is " + lb::layers_names_text("all") + ", not '" + s + "'");
}

// The set grouped by taxonomy name, in the order first seen.
Result<std::vector<std::pair<lb::Taxonomy, std::vector<lb::EvalIssue>>>> group(const LabelEvalOptions& o) {
  std::vector<std::pair<lb::Taxonomy, std::vector<lb::EvalIssue>>> groups;
  std::map<std::string, lb::Taxonomy> by_repo;
  PT_ASSIGN(auto issues, read_issue_sets(o.files, o.split, o.part));
  {
    for (auto& is : issues) {
      auto it = by_repo.find(is.repo);
      if (it == by_repo.end()) {
        PT_ASSIGN(auto t, o.taxonomy.empty() ? lb::taxonomy_for_repo(is.repo) : lb::load_taxonomy(o.taxonomy));
        it = by_repo.emplace(is.repo, std::move(t)).first;
      }
      auto g =
          std::find_if(groups.begin(), groups.end(), [&](const auto& p) { return p.first.name == it->second.name; });
      if (g == groups.end()) g = groups.insert(groups.end(), {it->second, {}});
      g->second.push_back(std::move(is));
    }
  }
  return groups;
}

Result<int> label_eval(const LabelEvalOptions& o, Io io) {
  nlohmann::json floors;
  if (!o.floors.empty()) {
    PT_ASSIGN(const auto text, read_input_file(o.floors));
    floors = nlohmann::json::parse(text, nullptr, false);
    if (floors.is_discarded() || !floors.is_object())
      return make_error(ErrorKind::invalid_input, "bad_floors", "the floors file is not a JSON object", o.floors);
  }
  PT_ASSIGN(const auto layers, parse_layers(o.layers));
  PT_ASSIGN(const auto groups, group(o));
  nlohmann::json all = nlohmann::json::array();
  std::vector<std::string> fails;
  for (const auto& [taxonomy, set] : groups) {
    PT_ASSIGN(const auto model, lb::model_option(o.model, taxonomy));
    std::vector<lb::EvalReport> reports;
    for (auto l : layers) {
      if (l != lb::Layers::rules && !model)
        return make_error(ErrorKind::invalid_input, "no_model",
                          "taxonomy " + taxonomy.name + " has no learned model: give --model FILE or --layers rules");
      reports.push_back(lb::evaluate_labeler(set, taxonomy, l, model.get()));
      if (o.json)
        all.push_back(lb::to_json(reports.back(), o.issues));
      else if (layers.size() == 1)
        io.out << lb::render_text(reports.back(), o.issues) << "\n";
      for (auto& f : lb::check_floors(reports.back(), floors)) fails.push_back(std::move(f));
    }
    if (!o.json && layers.size() > 1) io.out << lb::render_comparison(reports) << "\n";
  }
  if (o.json) io.out << (all.size() == 1 ? all[0] : all).dump(2) << "\n";
  for (const auto& f : fails) io.err << "below floor: " << f << "\n";
  if (!fails.empty())
    return make_error(ErrorKind::invalid_input, "below_floor",
                      std::to_string(fails.size()) + " score(s) below the floors of " + o.floors);
  return 0;
}

}  // namespace

void add_label_eval(const Command& cmd) {
  auto o = std::make_shared<LabelEvalOptions>();
  CLI::App& app = *cmd.app;
  app.add_option("files", o->files, "JSONL sets of issues ({repo, number, title, labels, body} per line)")->required();
  app.add_option("--taxonomy", o->taxonomy, "a built-in taxonomy or a JSON file (default: by each issue's repo)");
  app.add_option("--floors", o->floors, "a JSON file of per-axis minimums: exit 1 when a score is below");
  app.add_option(
         "--layers", o->layers,
         "rules, model, both (rules first, the model fills), gated (both, then the tracker's gates), tiered "
         "(both, applied only where the calibrated probability reaches the model's apply_at) or all side by side")
      ->capture_default_str();
  app.add_option("--model", o->model, "a label model file (tracker train), or none (default: the taxonomy's own)");
  app.add_option("--split", o->split,
                 "a time split ({\"owner/name\": first issue of the newer part}) to score one part");
  app.add_option("--part", o->part, "older or newer: the part of --split scored");
  app.add_flag("--issues", o->issues, "list each issue's missing and extra labels");
  app.add_flag("--json", o->json, "as JSON");
  cmd.on_run([o, io = cmd.io] { return [o, io] { return label_eval(*o, io); }; });
}

}  // namespace perftriage::cli
