#include "server/app/label_retrain.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "analyzers/labeler/model.hpp"
#include "common/log.hpp"
#include "common/strings.hpp"
#include "schema/task_lock.hpp"
#include "schema/label_feedback_store.hpp"
#include "schema/label_model_store.hpp"
#include "schema/tracker_store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/label_evidence.hpp"

namespace perftriage::server {
namespace {

namespace lb = analyzers::labeler;

// The settings `tracker train` uses by default: gates and calibration on five held-out folds.
lb::TrainSettings train_settings(const std::function<bool()>& stop) {
  lb::TrainSettings s;
  s.gate_folds = 5;
  s.stop = stop;
  return s;
}

// A stored model (`head`: which training), read and parsed once per training: every webhook of a repository reads the
// same one, and only the short head row is read from the database until a retrain replaces it.
Result<std::shared_ptr<const lb::LabelModel>> parsed(schema::Database& db, const schema::StoredLabelModel& head) {
  static std::mutex mutex;
  static std::map<std::string, std::pair<std::string, std::shared_ptr<const lb::LabelModel>>> cache;
  const std::lock_guard lock(mutex);
  auto& slot = cache[head.repo];
  if (slot.second && slot.first == head.trained_at) return slot.second;
  PT_ASSIGN(const auto stored, schema::label_model(db, head.repo));
  if (!stored) return make_error(ErrorKind::not_found, "no_label_model", "no retrained model of " + head.repo);
  PT_ASSIGN(auto model, lb::load_model(stored->model));
  slot = {stored->trained_at, std::make_shared<const lb::LabelModel>(std::move(model))};
  return slot.second;
}

// The corrections recorded per repository: by its name in lower case (GitHub's names are case-insensitive), with the
// spelling met first.
struct RepoCorrections {
  std::string repo;
  std::vector<lb::Correction> corrections;
};
Result<std::map<std::string, RepoCorrections>> corrections_by_repo(schema::Database& db) {
  PT_ASSIGN(const auto all, schema::label_corrections(db, ""));
  std::map<std::string, RepoCorrections> out;
  for (const auto& c : all) {
    auto& r = out[lower(c.repo)];
    if (r.repo.empty()) r.repo = c.repo;
    r.corrections.push_back({c.number, c.label, c.added});
  }
  return out;
}

Result<bool> retrain(schema::Database& db, const RepoSettings& repo, const std::vector<lb::Correction>& corrections,
                     const std::string& now, const std::function<bool()>& stop, Retrained& done) {
  PT_ASSIGN(const auto history, synced_history(db, repo.repo));
  if (history.empty()) return false;  // nothing synced to learn from
  PT_ASSIGN(const auto taxonomy, lb::load_taxonomy(repo.taxonomy));
  PT_ASSIGN(auto model, lb::train_model(history, taxonomy, train_settings(stop), nullptr, corrections));
  model.source = "db:" + repo.repo;
  const auto count = static_cast<std::int64_t>(corrections.size());
  PT_TRY(schema::save_label_model(
      db, {repo.repo, repo.taxonomy, lb::to_json(model).dump(), model.trained_issues, count, now}));
  done = {repo.repo, model.trained_issues, count};
  return true;
}

}  // namespace

Result<std::vector<Retrained>> retrain_due_models(schema::Store& store, const GitHubSettings& gh, std::int64_t min_new,
                                                  const std::string& now, const std::function<bool()>& stop) {
  std::vector<Retrained> out;
  if (min_new <= 0) return out;
  auto& db = store.db();
  PT_ASSIGN(const auto by_repo, corrections_by_repo(db));
  for (const auto& [key, found] : by_repo) {
    const auto& corrections = found.corrections;
    const auto repo = repo_settings(gh, found.repo);
    if (!repo || repo->label_model == "none") continue;
    PT_ASSIGN(const auto stored, schema::label_model_head(db, found.repo));
    const std::int64_t before = stored ? stored->corrections : 0;
    if (static_cast<std::int64_t>(corrections.size()) - before < min_new) continue;
    Retrained done;
    PT_ASSIGN(const bool trained, retrain(db, *repo, corrections, now, stop, done));
    if (trained) out.push_back(std::move(done));
  }
  return out;
}

void retrain_pass(AppContext& app, const std::function<bool()>& stop) {
  // Seconds of CPU on the task's own thread: requests (and uploads) come first, as the compute pool's jobs yield.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  auto store = app.store();
  if (!store) return log().error("retrain: {}", store.error().message);
  // Two replicas retraining at once would both spend the CPU and store the same model.
  auto turn = schema::TaskLock::try_take((*store)->db(), "label-retrain");
  if (!turn || !turn->held()) return;
  const auto& gh = app.settings().github;
  auto done = retrain_due_models(**store, gh, gh.retrain_corrections, schema::now_iso8601(), stop);
  if (!done && done.error().code == "training_stopped") return log().info("retrain: stopped with the server");
  if (!done) return log().error("retrain: {}", done.error().message);
  for (const auto& r : *done) {
    log().info("retrain: the labeler of {} learned from {} issues and {} corrections", r.repo, r.issues, r.corrections);
  }
}

Result<std::vector<lb::EvalIssue>> synced_history(schema::Database& db, std::string_view repo) {
  PT_ASSIGN(const auto issues, schema::list_tracker_issues(db, repo));
  std::vector<lb::EvalIssue> out;
  out.reserve(issues.size());
  for (const auto& t : issues) out.push_back({t.repo, {}, t.title, t.body, t.number, t.labels});
  return out;
}

Result<std::vector<lb::Correction>> repo_corrections(schema::Database& db, std::string_view repo) {
  PT_ASSIGN(const auto found, schema::label_corrections(db, repo));
  std::vector<lb::Correction> out;
  out.reserve(found.size());
  for (const auto& c : found) out.push_back({c.number, c.label, c.added});
  return out;
}

Result<nlohmann::json> retrained_models(schema::Database& db, std::string_view repo) {
  PT_ASSIGN(const auto models, schema::label_models(db));
  PT_ASSIGN(const auto by_repo, corrections_by_repo(db));
  auto out = nlohmann::json::array();
  for (const auto& m : models) {
    if (!repo.empty() && !iequals(m.repo, repo)) continue;
    const auto found = by_repo.find(lower(m.repo));
    const auto now = found == by_repo.end() ? 0 : static_cast<std::int64_t>(found->second.corrections.size());
    out.push_back({{"repo", m.repo},
                   {"taxonomy", m.taxonomy},
                   {"issues", m.issues},
                   {"corrections", m.corrections},
                   {"corrections_since", std::max<std::int64_t>(0, now - m.corrections)},
                   {"trained_at", m.trained_at}});
  }
  return out;
}

Result<lb::Taxonomy> repo_taxonomy(schema::Database& db, std::string_view repo, const std::string& taxonomy,
                                   const std::string& label_model) {
  PT_ASSIGN(auto out, bot_taxonomy(taxonomy, label_model));
  if (label_model == "none") return out;
  PT_ASSIGN(const auto head, schema::label_model_head(db, repo));
  if (!head || head->taxonomy != taxonomy) return out;  // trained for another taxonomy than the one set now
  PT_ASSIGN(out.model, parsed(db, *head));
  return out;
}

}  // namespace perftriage::server
