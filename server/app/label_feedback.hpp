#pragma once
// What maintainers did to the bot's labels, per repository and label (GET /api/v1/issues/labels, the Issues page's
// "What maintainers kept", the perftriage_bot_labels gauges): the labels the bot applied that stayed or that a human
// removed, and the labels a human added that the labeler could have given and did not (of which it had suggested
// how many). The counts come from the label memory the webhook keeps (schema/label_feedback_store.hpp); which labels
// the labeler could have given is the repository's taxonomy, from the bot's settings.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/database.hpp"
#include "server/app/settings.hpp"

namespace perftriage::server {

struct LabelFeedback {
  std::string repo, label;
  std::string axis;          // the taxonomy's axis of the label ("implied" for one it implies); "" when outside it
  std::int64_t kept = 0;     // applied by the bot and left on the issue
  std::int64_t removed = 0;  // applied by the bot, removed by a human
  std::int64_t added = 0;    // added by a human on an issue the bot labeled, not applied by it; taxonomy labels only
  std::int64_t suggested_then_added = 0;  // of `added`: the labeler had suggested it on that issue

  [[nodiscard]] std::int64_t applied() const { return kept + removed; }
  // kept / applied; nullopt when the bot applied it nowhere.
  [[nodiscard]] std::optional<double> precision_kept() const;
};

// Per (repo, label), ordered by repo then label; `repo` "" = every repository. A label a human added counts only when
// it belongs to the taxonomy the bot labels that repository with ([[github.repos]], else [github]): a maintainer's
// `triaged` or `skipped` corrects nothing. A label the bot applied counts whatever the taxonomy says now.
Result<std::vector<LabelFeedback>> label_feedback(schema::Database& db, const GitHubSettings& gh,
                                                  std::string_view repo);

nlohmann::json to_json(const LabelFeedback& row);
// {"kept", "removed", "added", "suggested_then_added", "applied", "precision_kept"} over every row.
nlohmann::json feedback_totals(const std::vector<LabelFeedback>& rows);

}  // namespace perftriage::server
