#pragma once
// What maintainers did to the bot's labels, read from the bot's label memory (issue_labels, migration 003) and the
// issues it labeled (labeled_issues): per label, how many it applied that stayed or that a human removed, and which
// labels a human added on an issue the bot had labeled. No table of its own: the webhook already records each
// human `labeled` / `unlabeled` event (bot_store.hpp). Reads are single statements.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

// One label of one repository, counted over issues.
struct LabelOutcome {
  std::string repo, label;
  std::int64_t kept = 0;     // applied by the bot and still on the issue (a human who removed and re-added it agrees)
  std::int64_t removed = 0;  // applied by the bot, then removed by a human
  // Added by a human on an issue the bot labeled, where the bot had not applied it and the labeler would not have (a
  // label it gave that was on the issue already, as the ones an issue is opened with, is no correction).
  std::int64_t added = 0;
};

// One correction of the labeler by a human, on an issue the bot labeled.
struct LabelCorrection {
  std::string repo;
  std::int64_t number = 0;
  std::string label;
  bool added = false;      // true: a human added it, not applied by the bot (LabelOutcome::added); false: removed
  bool suggested = false;  // added, and the labeler had suggested it (labeled_issues.result's "suggested")
};

// Per (repo, label), ordered by repo then label; `repo` "" = every repository (any case otherwise, as GitHub's
// names). Labels with nothing to count are absent. Every label is counted, whatever taxonomy it belongs to: which
// labels a repository's labeler could have applied is the caller's to decide (server/app/label_feedback.hpp).
Result<std::vector<LabelOutcome>> label_outcomes(Database& db, std::string_view repo);

// Every removal of a bot label by a human, and every label a human added on a bot-labeled issue that the bot did not
// apply, ordered by repo, issue and label; `repo` as label_outcomes. What a retrain weighs above plain history.
Result<std::vector<LabelCorrection>> label_corrections(Database& db, std::string_view repo);

}  // namespace perftriage::schema
