#pragma once
// The verdict on a CI upload's commit. An upload that names its commit and a repository configured for checks
// ([[github.repos]] checks = true) is compared, once stored, with its baseline (the platform's previous run, or the
// run or tag the upload names), and the outbox gets a `commit_check` action: a check run on the commit (a commit
// status where the App may not write checks, or in token mode), failing when a case regressed or newly fails. With a
// pull request, one comment on it too, found again by its marker and edited by each later upload of the platform.
// Everything goes through the outbox: durable, rate-limited, and recorded as dry_run when nothing may be sent.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/store.hpp"
#include "server/app/comparison.hpp"
#include "server/app/ingest_service.hpp"

namespace perftriage::server {

class AppContext;

struct UploadCheckRequest {
  std::string repo;               // owner/name
  std::string sha;                // the commit (the upload's `commit`)
  std::int64_t pull_request = 0;  // 0 = no comment
  std::string baseline = "previous";
  std::string platform;  // the upload's: names the check and the comment's marker
};

// The upload's repo / pr / commit / baseline as a request: nullopt when it names no repository (no check asked for);
// an invalid_input naming the field when one is malformed, or when a repository is named without a commit.
Result<std::optional<UploadCheckRequest>> upload_check_request(const UploadMeta& meta);

// What the check says: the conclusion, a one-line title, and the markdown summary (regressions and newly failing
// cases first, then cases newly slower than eager, each table cut at kMaxCheckRows rows).
struct CheckReport {
  std::string conclusion;  // failure | success | neutral (no baseline to compare with)
  std::string title;
  std::string summary;
  std::int64_t regressions = 0, new_failed = 0, newly_slower = 0, improvements = 0, cases = 0;
};
inline constexpr std::size_t kMaxCheckRows = 25;
// `comparison` nullptr: no baseline was found (`why` says which). `link` is the compare page ("" = none).
CheckReport check_report(const Comparison* comparison, const std::string& baseline, const std::string& why,
                         const std::string& link);

// The comment's first line, by which a later upload of `platform` finds and edits it.
std::string upload_comment_marker(const std::string& platform);

// After run `run_key` was stored: compares and queues. The answer says what was queued ({"queued": true,
// "conclusion", "title", "actions", "dry_run"}) or why nothing was ({"queued": false, "reason"}); never an error (the
// run is stored whatever happens here).
nlohmann::json queue_upload_check(AppContext& app, schema::Store& store, const std::string& run_key,
                                  const UploadCheckRequest& request);

}  // namespace perftriage::server
