#pragma once
// A tracker's issues and where its sync stands (migration 014; `perftriage tracker sync`, server/bot/tracker_sync.hpp).
// Repository names compare case-insensitively (ASCII), as on GitHub. store_tracker_page owns its transaction; the
// other writes run inside the caller's; reads are single statements.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

struct TrackerIssue {
  std::string repo;  // owner/name
  std::int64_t number = 0;
  std::string title, body;
  std::vector<std::string> labels;  // the label names, in GitHub's order
  std::string state;                // "open" | "closed"
  std::string updated_at;           // GitHub's ISO 8601 string
};

// One repository's sync (the tracker_sync row): what the next request asks for.
struct TrackerSyncState {
  std::string repo;
  std::string since;              // the --since asked, ISO 8601 ("" = the whole history)
  std::string cursor_updated_at;  // the newest updated_at stored; the next request asks since= this ("" = none yet)
  std::int64_t next_page = 1;     // the page of that request (> 1 only while more than a page shares the cursor)
  bool finished = false;          // the last pass reached the end of the list
  std::string last_error;         // why the last pass stopped early ("" = it did not)
  std::string updated_at;         // when the row was written (set by the writes below)
};

// Upserts `issues` (by repo and number: a later copy replaces the stored one) and writes `progress` as the repo's
// sync row, in ONE transaction of its own (BEGIN IMMEDIATE): a sync killed at any point has stored whole pages, each
// with the progress that follows it. An issue's repo must be progress.repo. Returns the number of issues written.
Result<std::int64_t> store_tracker_page(Database& db, const std::vector<TrackerIssue>& issues,
                                        const TrackerSyncState& progress);
// Writes the repo's sync row alone (a pass starting, or stopping with last_error). One statement.
Result<void> save_tracker_sync(Database& db, const TrackerSyncState& progress);
// The repo's sync row, nullopt before its first sync.
Result<std::optional<TrackerSyncState>> find_tracker_sync(Database& db, std::string_view repo);

// The repo's stored issues, ordered by number. The labels column is JSON written by store_tracker_page; a value
// that does not parse as an array of strings reads as no labels.
Result<std::vector<TrackerIssue>> list_tracker_issues(Database& db, std::string_view repo);
// How many issues of the repo are stored.
Result<std::int64_t> count_tracker_issues(Database& db, std::string_view repo);

}  // namespace perftriage::schema
