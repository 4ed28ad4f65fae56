// perftriage tracker train (--db PATH --repo OWNER/NAME | --from FILE.jsonl...) --out MODEL.json
//                        [--taxonomy NAME|PATH] [--threshold P] [--min-positives N] [--gate-folds K]
//                        [--gate-max-lost S] [--split FILE --part older|newer] [--correction-weight W] [--json]
// Fits the learned layer of the labeler (analyzers/labeler/model.hpp) on a tracker's history: the issues that
// `tracker sync` stored (with the maintainers' corrections of the bot's labels the webhook recorded, weighed above
// the rest), or JSONL files in label-eval's format (`tracker export`, tests/fixtures/labeler/real/history).
// Written as data: copy it to analyzers/taxonomies/models/<taxonomy>.json to make it the taxonomy's built-in model,
// or pass it with --model to `label` / `label-eval`. The model records the issue numbers it saw, so label-eval never
// scores them. Each label's gate (when the tracker would leave a rules value off) is fitted on K held-out folds.
#include <fstream>
#include <memory>
#include <ostream>

#include <fmt/format.h>

#include "analyzers/labeler/eval.hpp"
#include "analyzers/labeler/model.hpp"
#include "common/strings.hpp"
#include "server/app/label_retrain.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

namespace lb = perftriage::analyzers::labeler;

struct TrainOptions {
  std::string db, repo, taxonomy, out, split, part;
  std::vector<std::string> from;
  lb::TrainSettings settings = [] {
    lb::TrainSettings s;
    s.gate_folds = 5;
    return s;
  }();
  bool json = false;
};

nlohmann::json gates_json(const std::vector<lb::GateReport>& gates) {
  auto out = nlohmann::json::array();
  for (const auto& g : gates)
    out.push_back({{"label", g.label},
                   {"gate", g.gate},
                   {"given", g.given},
                   {"correct", g.correct},
                   {"withheld", g.withheld},
                   {"lost", g.lost}});
  return out;
}

// One line per label the rules gave on a held-out fold: what its gate withholds there, and what that costs.
void print_gates(const std::vector<lb::GateReport>& gates, int folds, std::ostream& out) {
  if (gates.empty()) return;
  out << fmt::format(
      "gates ({} held-out folds): the rules' values of a label, how many the tracker set, and what the "
      "gate withholds\n",
      folds);
  for (const auto& g : gates) {
    out << fmt::format("  {:<40} given {:>4}, tracker set {:>4}", g.label, g.given, g.correct);
    if (g.gate > 0)
      out << fmt::format(": gate {:.2f} withholds {} ({} of them set by the tracker)\n", g.gate, g.withheld, g.lost);
    else
      out << ": no gate\n";
  }
}

// One line per label and source the calibration saw on the held-out folds: how often the tracker kept it, and the raw
// probability from which the tiered layer applies it (its threshold), or that it is only ever suggested.
void print_calibration(const std::vector<lb::Calibration>& calibration, double apply_at, std::ostream& out) {
  if (calibration.empty()) return;
  out << fmt::format("calibration (held-out folds): applied at a calibrated probability of {:.2f} or more\n", apply_at);
  for (const auto& c : calibration) {
    out << fmt::format("  {:<40} {:<5} judged {:>4}, kept {:>4}: ", c.label, lb::to_string(c.source), c.judged, c.kept);
    const auto from = c.from(apply_at);
    out << (from ? fmt::format("applied from p {:.2f}\n", *from) : std::string("suggested only\n"));
  }
}

nlohmann::json thresholds_json(const std::vector<lb::Calibration>& calibration, double apply_at) {
  auto out = nlohmann::json::array();
  for (const auto& c : calibration) {
    const auto from = c.from(apply_at);
    out.push_back({{"label", c.label},
                   {"source", lb::to_string(c.source)},
                   {"judged", c.judged},
                   {"kept", c.kept},
                   {"applied_from", from ? nlohmann::json(*from) : nlohmann::json(nullptr)}});
  }
  return out;
}

// The history: every --from file, or the repo's synced issues with the maintainers' corrections of the bot's labels
// (schema/label_feedback_store.hpp), which the training takes as the truth for their issues.
Result<std::vector<lb::EvalIssue>> history(const TrainOptions& o, std::string& source,
                                           std::vector<lb::Correction>& corrections) {
  std::vector<lb::EvalIssue> out;
  if (!o.from.empty()) {
    PT_ASSIGN(out, read_issue_sets(o.from, o.split, o.part));
    for (const auto& f : o.from) source += (source.empty() ? "" : " ") + f;
    if (!o.part.empty()) source += " (" + o.part + " part of " + o.split + ")";
    if (out.empty()) return make_error(ErrorKind::invalid_input, "no_history", "no issues in " + source);
    return out;
  }
  if (o.db.empty() || o.repo.empty())
    return make_error(ErrorKind::invalid_input, "no_history", "give --from FILE.jsonl, or --db PATH and --repo");
  PT_ASSIGN(auto store, open_existing_store(o.db));
  PT_ASSIGN(out, server::synced_history(store.db(), o.repo));
  PT_ASSIGN(corrections, server::repo_corrections(store.db(), o.repo));
  if (out.empty())
    return make_error(ErrorKind::not_found, "no_history",
                      "no synced issues of " + o.repo + " in " + o.db + " (run `perftriage tracker sync` first)");
  source = "db:" + o.repo;
  return out;
}

Result<int> train(const TrainOptions& o, Io io) {
  std::string source;
  std::vector<lb::Correction> corrections;
  PT_ASSIGN(const auto set, history(o, source, corrections));
  const std::string repo = o.repo.empty() ? set.front().repo : o.repo;
  PT_ASSIGN(const auto taxonomy, o.taxonomy.empty() ? lb::taxonomy_for_repo(repo) : lb::load_taxonomy(o.taxonomy));
  lb::TrainReport rep;
  PT_ASSIGN(auto model, lb::train_model(set, taxonomy, o.settings, &rep, corrections));
  model.source = source;
  std::ofstream f(o.out, std::ios::binary | std::ios::trunc);
  f << lb::to_json(model).dump(1) << "\n";
  if (!f.flush()) return make_error(ErrorKind::internal, "write_failed", "cannot write the model to " + o.out, o.out);
  if (o.json) {
    io.out << nlohmann::json{{"out", o.out},
                             {"taxonomy", taxonomy.name},
                             {"issues", rep.issues},
                             {"features", rep.features},
                             {"labels", rep.labels},
                             {"skipped", rep.skipped},
                             {"gates", gates_json(rep.gates)},
                             {"corrections", rep.corrections},
                             {"thresholds", thresholds_json(rep.calibration, model.apply_at)}}
                  .dump(2)
           << "\n";
    return 0;
  }
  io.out << fmt::format("trained {} on {} issues ({}), {} features: {} labels\n", taxonomy.name, rep.issues, source,
                        rep.features, rep.labels.size());
  if (!corrections.empty())
    io.out << fmt::format(
        "maintainers' corrections: {} of {} recorded name an issue of the history, each weighing {}\n", rep.corrections,
        corrections.size(), o.settings.correction_weight);
  for (const auto& [label, n] : rep.labels) io.out << fmt::format("  {:<40} {:>4} issues\n", label, n);
  if (!rep.skipped.empty())
    io.out << fmt::format("skipped (fewer than {} issues): {}\n", o.settings.min_positives, join(rep.skipped, ", "));
  print_gates(rep.gates, o.settings.gate_folds, io.out);
  print_calibration(rep.calibration, model.apply_at, io.out);
  io.out << "model written to " << o.out << "\n";
  return 0;
}

}  // namespace

void add_tracker_train(const Command& cmd) {
  auto o = std::make_shared<TrainOptions>();
  CLI::App& app = *cmd.app;
  app.add_option("--from", o->from, "JSONL histories ({repo, number, title, labels, body} per line)");
  add_db_option(app, o->db);
  app.add_option("--repo", o->repo, "owner/name of the synced tracker");
  app.add_option("--taxonomy", o->taxonomy, "a built-in taxonomy or a JSON file (default: by the repository)");
  app.add_option("--out", o->out, "where to write the model (JSON)")->required();
  app.add_option("--split", o->split, "a time split ({\"owner/name\": first issue of the newer part}) of --from");
  app.add_option("--part", o->part, "older or newer: the part of --split to learn from");
  app.add_option("--threshold", o->settings.threshold, "the probability at which the model fills a label")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  app.add_option("--min-positives", o->settings.min_positives, "train a label only when this many issues carry it")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  app.add_option("--gate-folds", o->settings.gate_folds,
                 "fit each label's gate on this many held-out folds of the history (0: no gates)")
      ->check(CLI::Range(0, 20))
      ->capture_default_str();
  app.add_option("--gate-max-lost", o->settings.gate_max_lost,
                 "the largest share of the tracker's own values (held out) a gate may withhold")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app.add_option("--correction-weight", o->settings.correction_weight,
                 "how many history issues a maintainer's correction weighs (--db)")
      ->check(CLI::Range(1.0, 100.0))
      ->capture_default_str();
  app.add_flag("--json", o->json, "the training report as JSON");
  cmd.on_run([o, io = cmd.io] { return [o, io] { return train(*o, io); }; });
}

}  // namespace perftriage::cli
