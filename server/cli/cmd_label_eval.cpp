// perftriage label-eval FILE.jsonl... [--taxonomy NAME|PATH] [--json] [--issues] [--floors FILE]
// Scores the labeler against the labels a tracker set (analyzers/labeler/eval.hpp). Each issue is labeled with the
// taxonomy of its repository (intel/torch-xpu-ops -> torch-xpu-ops, pytorch/pytorch -> pytorch) unless --taxonomy
// names one for all. --floors: exit 1 when a score is below its floor (the CTest entry label_eval).
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>

#include "analyzers/labeler/eval.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

namespace lb = perftriage::analyzers::labeler;

struct LabelEvalOptions {
  std::vector<std::string> files;
  std::string taxonomy, floors;
  bool json = false, issues = false;
};

// The set grouped by taxonomy name, in the order first seen.
Result<std::vector<std::pair<lb::Taxonomy, std::vector<lb::EvalIssue>>>> group(const LabelEvalOptions& o) {
  std::vector<std::pair<lb::Taxonomy, std::vector<lb::EvalIssue>>> groups;
  std::map<std::string, lb::Taxonomy> by_repo;
  for (const auto& file : o.files) {
    PT_ASSIGN(const auto text, read_input_file(file));
    PT_ASSIGN(auto set, lb::parse_eval_set(text, file));
    for (auto& is : set) {
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
  PT_ASSIGN(const auto groups, group(o));
  nlohmann::json all = nlohmann::json::array();
  std::vector<std::string> fails;
  for (const auto& [taxonomy, set] : groups) {
    const auto report = lb::evaluate_labeler(set, taxonomy);
    if (o.json)
      all.push_back(lb::to_json(report, o.issues));
    else
      io.out << lb::render_text(report, o.issues) << "\n";
    for (auto& f : lb::check_floors(report, floors)) fails.push_back(std::move(f));
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
  app.add_flag("--issues", o->issues, "list each issue's missing and extra labels");
  app.add_flag("--json", o->json, "as JSON");
  cmd.on_run([o, io = cmd.io] { return [o, io] { return label_eval(*o, io); }; });
}

}  // namespace perftriage::cli
