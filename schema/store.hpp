#pragma once
// The opened, migrated database (Store), and the run tables: runs, their files (raw bytes kept), parsed rows and
// expectations. Writes are called inside a Transaction (BEGIN IMMEDIATE) owned by the caller, so that one
// upload is one transaction; reads are single statements.
#include <cstdint>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"
#include "ingest/records.hpp"
#include "model/records.hpp"
#include "schema/sqlite.hpp"

namespace perftriage::schema {

struct NewFile {
  std::string path;
  std::string format;
  ingest::Axes axes;
  std::string_view bytes;  // original bytes; stored compressed
  std::string sha256;
  std::string header;
  std::int64_t row_count = 0;
  std::int64_t duplicates_dropped = 0;
  std::string compressed;  // deflate_bytes(bytes) when the caller already has it; "" = compress here
};

enum class ResultFlag { any, slow, failed, accuracy_failed, unreliable, deviates, invalid };

struct ResultFilter {
  std::vector<std::int64_t> run_ids;                    // empty = every run
  std::string suite, dtype, mode, kind, config, model;  // "" = any
  ResultFlag flag = ResultFlag::any;
  double threshold = 1.0;  // for ResultFlag::slow: 0 < speedup < threshold
  std::int64_t limit = 0;  // 0 = no limit
  std::int64_t offset = 0;
};

// Inserts the result rows of one stored file one at a time (the statements are prepared once), so that a file's
// rows need not be in memory together. The case ids of the file's group (its axes) are read once when it opens;
// a model not seen before becomes a new case. Use inside the caller's Transaction; the Database must outlive it. After
// the last row the caller calls refresh_run_flags (it recounts the run's summaries), as ingest does.
class ResultWriter {
 public:
  static Result<ResultWriter> open(Database& db, std::int64_t run_id, std::int64_t file_id, ingest::Axes axes);
  Result<void> add(const ingest::ResultRow& row, const model::RowFlags& flags);
  // Stores what add() still holds (PostgreSQL batches rows): call it after the last add(), before reading the rows.
  Result<void> finish();

 private:
  ResultWriter(Database& db, Statement st, Statement insert_case, Statement find_case, std::int64_t run_id,
               std::int64_t file_id, std::int64_t group_id, ingest::Axes axes,
               std::unordered_map<std::string, std::int64_t> cases)
      : db_(&db),
        st_(std::move(st)),
        insert_case_(std::move(insert_case)),
        find_case_(std::move(find_case)),
        run_id_(run_id),
        file_id_(file_id),
        group_id_(group_id),
        axes_(std::move(axes)),
        cases_(std::move(cases)) {}
  static constexpr int kResultColumns = 27;         // the parameters of one row of kInsertResult
  static constexpr std::size_t kResultBatch = 200;  // rows per INSERT on PostgreSQL (5,400 of its 65,535 parameters)
  struct Pending {
    std::int64_t case_id;  // 0 until resolve_pending_cases()
    ingest::ResultRow row;
    model::RowFlags flags;
    std::string extra;
  };
  Result<std::int64_t> case_id(const std::string& model);
  Result<void> resolve_pending_cases();
  void bind_row(Statement& st, int base, std::int64_t case_id, const ingest::ResultRow& row, const model::RowFlags& f,
                std::string& extra);
  Result<void> flush();
  Database* db_;
  Statement st_;
  Statement insert_case_;
  Statement find_case_;
  std::int64_t run_id_;
  std::int64_t file_id_;
  std::int64_t group_id_;
  ingest::Axes axes_;
  std::unordered_map<std::string, std::int64_t> cases_;  // model -> case id of the group's cases stored before
  std::string extra_text_;
  std::vector<Pending> pending_;
};

// The database as the service uses it: opened, migrated to the latest schema, the backlog replayed when a migration
// asked for it. Every query is a free function over its db() (schema/README.md).
class Store {
 public:
  // Opens the database file (":memory:" in tests) and migrates it to the latest schema.
  static Result<Store> open(const std::string& path);

  Database& db() noexcept { return db_; }

 private:
  explicit Store(Database db) : db_(std::move(db)) {}
  Database db_;
};

// --- platforms ---
// Platform keys are case-insensitive and stored in one spelling: that of the first run stored for the platform.
// The stored spelling of `platform` ("a100" -> "A100" when the first A100 run said so), or `platform` itself when no
// run has it. Every function below that takes a platform looks it up through this.
Result<std::string> stored_platform(Database& db, const std::string& platform);

// --- writes (inside the caller's Transaction) ---
// Creates the run, or returns the existing one's id; an existing key of another platform is a conflict. A new run
// of a known platform takes its stored spelling. Tags are merged, empty device/torch_version/commit are filled,
// environment keys are merged.
Result<std::int64_t> ensure_run(Database& db, const model::RunMeta& meta);
Result<std::optional<model::FileRecord>> live_file(Database& db, std::int64_t run_id, std::string_view path);
Result<std::int64_t> insert_file(Database& db, std::int64_t run_id, const NewFile& file);
// Stores `file` in place of the live file old_id: the old file's rows and expectations are deleted,
// its record is kept (superseded_by = the new id) for audit. Returns the new file's id.
Result<std::int64_t> replace_file(Database& db, std::int64_t run_id, std::int64_t old_id, const NewFile& file);
// All of a file's rows at once (tests, tools), the run's summaries recounted after them.
Result<void> insert_results(Database& db, std::int64_t run_id, std::int64_t file_id, const ingest::Axes& axes,
                            const std::vector<ingest::ResultRow>& rows, const std::vector<model::RowFlags>& flags);
Result<void> insert_expectations(Database& db, std::int64_t run_id, std::int64_t file_id,
                                 const std::vector<ingest::Expectation>& rows);
// Recomputes the relational flags of a run: `unreliable` (speedup of a model failing accuracy in
// the same run), `expected_accuracy` and `deviates` (pass/fail differs from the run's reference); then its summaries.
Result<void> refresh_run_flags(Database& db, std::int64_t run_id);
// Recounts the run's per-group summaries (run_groups, migration 010) from its rows. refresh_run_flags ends with it;
// whatever else changes a run's rows calls it in the same transaction.
Result<void> refresh_run_summary(Database& db, std::int64_t run_id);

// --- reads (single statements) ---
Result<std::vector<model::RunRecord>> list_runs(Database& db, const std::string& platform = {});  // newest first
// One page of runs, newest first (created_at, then id). `cursor` is "" for the first page, else the `next_cursor` of
// the page before: the (created_at, id) of its last run, so a page is one range read of runs_platform_created however
// deep it is, and runs stored meanwhile never shift it. An unreadable cursor is invalid_input (column "cursor").
struct RunPage {
  std::vector<model::RunRecord> runs;
  std::string next_cursor;  // "" = no more runs
};
Result<RunPage> list_runs_page(Database& db, const std::string& platform, std::int64_t limit,
                               const std::string& cursor);
Result<std::optional<model::RunRecord>> find_run(Database& db, const std::string& key);
Result<std::optional<model::RunRecord>> latest_run(Database& db, const std::string& platform);
// Same platform, just before.
Result<std::optional<model::RunRecord>> previous_run(Database& db, const model::RunRecord& run);
Result<std::int64_t> count_runs(Database& db);  // every platform
Result<std::vector<model::FileRecord>> run_files(Database& db, std::int64_t run_id);
// The file as uploaded; not_found with code "raw_dropped" once retention dropped its raw bytes.
Result<std::string> file_bytes(Database& db, std::int64_t file_id);
Result<model::RunCounts> run_counts(Database& db, std::int64_t run_id, double threshold);
Result<std::vector<model::ResultRecord>> results(Database& db, const ResultFilter& filter);
// Models expected in this run (by its previous run of the platform, or by its reference files)
// that have no row, for the suite/dtype/mode/kind groups the run has files for.
Result<std::vector<model::MissingRecord>> missing(Database& db, const model::RunRecord& run);

std::string now_iso8601();
// `t` (unix seconds) as "YYYY-MM-DDTHH:MM:SSZ", UTC: the form every time column holds.
std::string iso8601_utc(std::time_t t);

}  // namespace perftriage::schema
