#pragma once
// The labeler learns while `serve` runs: once maintainers have corrected the bot's labels on a repository
// [github] retrain_corrections times since its model was last trained (a label the bot applied and a human removed, a
// label a human added that it did not apply; schema/label_feedback_store.hpp), the model is trained again on the
// repository's synced history (`tracker sync`) with the corrections weighed above it, as `tracker train --db` does,
// and stored (schema/label_model_store.hpp). From then on the bot labels that repository with it, its calibration
// (when a label is applied, when only suggested) moved by what the maintainers kept and took off.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/labeler/model.hpp"
#include "analyzers/labeler/taxonomy.hpp"
#include "common/result.hpp"
#include "schema/store.hpp"
#include "server/app/settings.hpp"

namespace perftriage::server {

class AppContext;

struct Retrained {
  std::string repo;
  std::int64_t issues = 0, corrections = 0;
};

// Every repository with at least `min_new` corrections more than its stored model was trained with (all of them when
// it has none) and a synced history: trained and stored, `now` (ISO 8601) its time. Repositories the bot does not
// serve ([[github.repos]]) or whose model [github] turns off ("none") are left alone. `min_new` 0 retrains nothing.
// `stop` (may be empty) cuts a training short: the pass then ends with `training_stopped`, nothing stored.
Result<std::vector<Retrained>> retrain_due_models(schema::Store& store, const GitHubSettings& gh, std::int64_t min_new,
                                                  const std::string& now, const std::function<bool()>& stop = {});

// One pass of serve's periodic retrain ([github] retrain_corrections, every retrain_check_s): one replica at a time on
// a shared PostgreSQL (the others skip the round); each model trained, and each error, is a log line.
void retrain_pass(AppContext& app, const std::function<bool()>& stop);

// A repository's issues as `tracker sync` stored them, in the shape the labeler learns from; and the maintainers'
// corrections of the bot's labels there, which the training weighs above them.
Result<std::vector<analyzers::labeler::EvalIssue>> synced_history(schema::Database& db, std::string_view repo);
Result<std::vector<analyzers::labeler::Correction>> repo_corrections(schema::Database& db, std::string_view repo);

// The models serve retrained, by repository ("" = every one): [{"repo", "taxonomy", "issues", "corrections",
// "corrections_since", "trained_at"}], corrections_since counting those recorded after the training (the next retrain
// waits for [github] retrain_corrections of them).
Result<nlohmann::json> retrained_models(schema::Database& db, std::string_view repo);

// The taxonomy the bot labels `repo` with: `taxonomy` with the model retrained for the repository when there is one
// for that taxonomy, else with `label_model` as bot_taxonomy reads it ("none" keeps the rules alone either way).
Result<analyzers::labeler::Taxonomy> repo_taxonomy(schema::Database& db, std::string_view repo,
                                                   const std::string& taxonomy, const std::string& label_model);

}  // namespace perftriage::server
