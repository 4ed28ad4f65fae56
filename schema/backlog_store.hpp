#pragma once
// The slower-than-eager backlog table (migration 004), kept current at ingest: each run's performance
// rows update the cases they measure, in O(rows of the run), whatever the platform's history length.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

// Folds the performance rows of the given stored files of one run into the backlog of the run's platform
// (inside the caller's transaction). Runs may arrive in any order: a late, older measurement is placed by
// its run's created_at. runs_slow counts slow measurements as ingested (a replaced file's rows count again).
Result<void> update_backlog(Database& db, std::int64_t run_id, const std::vector<std::int64_t>& file_ids);

// Replays every run, oldest first, into an empty backlog; runs when migration 004 met existing data.
Result<void> rebuild_backlog_if_pending(Database& db);

struct BacklogState {
  std::string suite, dtype, mode, config, model;
  std::string status;                             // open | fixed | failing
  std::string first_seen, last_seen, latest_run;  // run keys
  std::optional<std::string> fixed_in;            // only for status fixed
  std::string latest_speedup;                     // as written in the file
  std::optional<double> worst_speedup;
  std::int64_t runs_slow = 0;
};

Result<std::int64_t> count_platform_runs(Database& db, const std::string& platform);  // any spelling of it

// Deleting a run (schema/run_delete.hpp): the backlog cases of the run's platform that the run measured (read them
// before its rows go), then each recomputed from the platform's remaining measurements, as update_backlog would have
// built it from them; a case no remaining measurement has slower than eager leaves the backlog. Inside the caller's
// transaction. Returns how many of the cases are still in the backlog.
struct BacklogCase {
  std::int64_t case_id = 0;  // cases.id
};
Result<std::vector<BacklogCase>> backlog_cases_of_run(Database& db, std::int64_t run_id, const std::string& platform);
Result<std::int64_t> recompute_backlog_cases(Database& db, const std::string& platform,
                                             const std::vector<BacklogCase>& cases);

// Open first (worst speedup first), then failing, then fixed; ties by case key. `platform` in any spelling.
Result<std::vector<BacklogState>> read_backlog(Database& db, const std::string& platform);

}  // namespace perftriage::schema
