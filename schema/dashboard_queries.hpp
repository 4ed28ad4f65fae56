#pragma once
// Read-only aggregates for the dashboard (server/routes/dashboard.cpp): a cheap run list for pickers, the last runs
// of each platform, and per-run group statistics (suite x dtype x mode): the summaries stored at ingest (run_groups)
// at the default threshold, else counted in SQL over the run's rows. Free functions over a Database; each is one or two
// statements.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"
#include "schema/store.hpp"

namespace perftriage::schema::dashboard {

struct RunBrief {
  std::int64_t id = 0;
  std::string key, platform, device, torch_version, commit, created_at;
  std::string tags_json = "[]";
};

// One suite/dtype/mode/kind group of a run. Speedup statistics count performance rows that did not fail.
struct GroupStats {
  std::string suite, dtype, mode, kind;
  std::int64_t rows = 0;
  std::int64_t measured = 0;         // performance rows with failed = 0 and speedup > 0
  std::int64_t slow = 0;             // measured and speedup < threshold
  std::int64_t failed = 0;           // failed = 1
  std::int64_t accuracy_failed = 0;  // accuracy rows not passing
  double log_sum = 0;                // sum of ln(speedup) over measured rows (HUD geomean: unclipped)
  double log_sum_clipped = 0;        // sum of ln(max(speedup, 1)) over measured rows (runner.py: clipped at 1)
};

// What identifies the rows of a run: rows change only when a file is stored or superseded, which moves these.
// Deleting a run frees its ids, which a new run may reuse (rowids are max + 1): every deletion writes an audit_log
// row (schema/run_delete.hpp), so the newest audit id is part of the stamp.
struct RunStamp {
  std::int64_t live_files = 0;
  std::int64_t max_file_id = 0;
  std::int64_t last_audit_id = 0;
  bool operator==(const RunStamp&) const = default;
};

// Newest first (created_at, then id); platform "" = every platform, else any spelling of it. limit <= 0 = no limit.
// RunsWith::performance: only the runs with performance results (schema/store.hpp), as the overview reads them.
Result<std::vector<RunBrief>> list_runs(Database& db, const std::string& platform, std::int64_t limit,
                                        RunsWith with = RunsWith::anything);
Result<std::optional<RunBrief>> find_run(Database& db, const std::string& key);
Result<std::vector<std::string>> platforms(Database& db);
// Distinct tags over every run, sorted.
Result<std::vector<std::string>> tags(Database& db);
Result<RunStamp> run_stamp(Database& db, std::int64_t run_id);
// Ordered by kind, suite, dtype, mode.
Result<std::vector<GroupStats>> run_group_stats(Database& db, std::int64_t run_id, double threshold);

}  // namespace perftriage::schema::dashboard
