#pragma once
// Deleting a run and everything hanging off it: DELETE /api/v1/runs/{key}, `perftriage runs delete`, and
// the retention task. What references a run (migrations 001-004): result_files, results and expectations (also through
// their file), artifacts (their findings are a column of the artifact row), and the maintained backlog (004), whose
// rows name runs by id without a foreign key: every backlog case the run measured is recomputed from the platform's
// remaining runs, so the backlog stays equal to the one recomputed from history.
//
// Rows are deleted explicitly, child tables first, with foreign keys switched off for the transaction: with them on,
// deleting a result_files row makes SQLite look for results and expectations rows by file_id and for files superseded
// by it, columns without an index, i.e. a scan of the largest tables per deleted file.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

struct DeletedRun {
  std::string key;
  std::string platform;
  std::string created_at;
  std::int64_t files = 0;  // result_files rows (superseded ones included)
  std::int64_t results = 0;
  std::int64_t expectations = 0;
  std::int64_t artifacts = 0;
  std::int64_t findings = 0;         // classifier findings of those artifacts
  std::int64_t backlog_updated = 0;  // backlog cases the run measured, recomputed from the remaining runs
  std::int64_t backlog_removed = 0;  // of those, cases no remaining run has slower than eager
};

// One transaction: the run with everything above, the backlog cases recomputed, and an audit_log row
// (actor, action, target = the run key, detail = the counts). not_found (code "no_run") naming an unknown key.
// Must be called outside a transaction (foreign keys can only be switched off there; inside one it still works,
// with them on, just slower).
Result<DeletedRun> delete_run(Database& db, const std::string& key, std::string_view actor,
                              std::string_view action = "run.delete");

// The deletes and the backlog upkeep alone, inside the caller's transaction.
Result<DeletedRun> delete_run_rows(Database& db, std::int64_t run_id);

nlohmann::json to_json(const DeletedRun& d);

}  // namespace perftriage::schema
