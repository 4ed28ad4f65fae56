#pragma once
// `perftriage tracker sync`: a tracker's issues and their labels pulled through the REST client into tracker_issues
// (schema/tracker_store.hpp), the history a label model learns from (docs/tracker-sync.md).
//
// GET /repos/{repo}/issues?state=all&sort=updated&direction=asc, least recently updated first, paged by the cursor
// of migration 014: each request asks since= the newest updated_at stored (page 1, or the next page while more than
// a page shares that second). Each page is stored in one transaction together with the progress, so a sync killed
// between pages resumes after the last page stored; a finished sync run again is incremental from its cursor.
// Pull requests (items with a "pull_request" key) are skipped; titles, bodies and labels are capped. A rate limit
// (403 / 429 with x-ratelimit-remaining: 0, or retry-after) is waited out when the wait fits max_wait_ms, else the
// sync stops with the progress saved; transport errors and 5xx are retried with backoff a few times, then the same.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "common/utf8.hpp"  // cut_utf8: the caps on what a sync stores
#include "schema/database.hpp"
#include "schema/tracker_store.hpp"
#include "server/bot/github_client.hpp"
#include "server/bot/outbox_worker.hpp"

namespace perftriage::server {

// What one stored issue may hold: GitHub's own title limit, 64 KiB of body, 100 labels of 100 characters. Longer
// is cut (at a character boundary), so a hostile tracker cannot make a row, or the model learnt from it, unbounded.
inline constexpr std::size_t kTrackerTitleChars = 256;
inline constexpr std::size_t kTrackerBodyBytes = 65536;
inline constexpr std::size_t kTrackerMaxLabels = 100;
inline constexpr std::size_t kTrackerLabelChars = 100;
// The largest answer read for one page (100 issues at GitHub's largest bodies are about 26 MiB).
inline constexpr std::size_t kTrackerPageBytes = std::size_t{64} << 20;

struct TrackerSyncOptions {
  std::string repo;                             // owner/name (is_github_repo)
  std::string since;                            // ISO 8601 UTC (normalize_since); "" = resume, or the whole history
  int per_page = 100;                           // GitHub's largest
  std::int64_t max_pages = 0;                   // stop after this many pages (resumable); 0 = until the end
  std::int64_t max_wait_ms = 15 * 60 * 1000;    // the longest rate-limit wait; a longer one stops the sync
  RetryPolicy retry{4, 1000, 60000, 60000};     // transport errors and 5xx: 4 attempts per page
  std::function<void(std::int64_t ms)> sleep;   // default: this thread sleeps
  std::function<void(const std::string&)> log;  // a line per page and per wait; may be empty
};

struct TrackerSyncReport {
  std::string repo;
  std::string mode;                // "full" (a first sync, or a new --since), "resumed" (after a stop), "incremental"
  std::string since;               // what the first request asked ("" = everything)
  std::int64_t pages = 0;          // pages stored
  std::int64_t issues = 0;         // issues written (an issue fetched twice counts twice)
  std::int64_t pull_requests = 0;  // skipped
  std::int64_t invalid = 0;        // items without a positive integer number, skipped
  std::int64_t truncated = 0;      // issues whose title, body or labels were cut
  std::int64_t rate_limit_waits = 0;  // rate limits waited out ...
  std::int64_t waited_ms = 0;         // ... and how long in all
  std::int64_t retries = 0;           // transport errors and 5xx retried
  std::int64_t stored = 0;            // the repo's issues in the database afterwards
  schema::TrackerSyncState state;     // the progress as saved at the end
  std::optional<Error> error;         // why it stopped before the end (the progress is saved: run it again)
};
// {"repo", "mode", "since", "pages", "issues", "pull_requests", "invalid", "truncated", "rate_limit_waits",
//  "waited_ms", "retries", "stored", "finished", "cursor", "next_page", "error": null | {"code", "message"}}
nlohmann::json to_json(const TrackerSyncReport& report);

// Runs the sync to its end, to max_pages, or to a stop (report.error). An Error only for what stops it before any
// request (a repository name is_github_repo refuses, a bad since) or a database failure.
Result<TrackerSyncReport> sync_tracker(schema::Database& db, GitHubClient& client, const TrackerSyncOptions& options);

// The pieces, for tests.

// "YYYY-MM-DD" (midnight UTC) or "YYYY-MM-DDTHH:MM:SSZ" as the latter; "" stays ""; anything else is refused.
Result<std::string> normalize_since(std::string_view since);
// One page of GET .../issues as rows of `repo`: pull requests and items without a number dropped, values capped.
struct IssuePage {
  std::vector<schema::TrackerIssue> issues;
  std::int64_t pull_requests = 0, invalid = 0, truncated = 0;
  std::string newest_updated_at;  // the largest well-formed updated_at of every item, pull requests included
};
IssuePage parse_issue_page(const nlohmann::json& items, const std::string& repo);
// Whether a `link` header names a rel="next" page; nullopt when there is no header.
std::optional<bool> link_has_next(std::string_view link);

}  // namespace perftriage::server
