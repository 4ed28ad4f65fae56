#pragma once
// The opened, migrated database (Store), and the run tables: runs, their files (raw bytes kept), parsed rows and
// expectations. Writes are called inside a Transaction (BEGIN IMMEDIATE) owned by the caller, so that one
// upload is one transaction; reads are single statements.
#include <cstdint>
#include <ctime>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/result.hpp"
#include "ingest/records.hpp"
#include "model/records.hpp"
#include "schema/database.hpp"

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
  std::string_view compressed;  // compress_file_bytes(bytes) when the caller has it (not copied); "" = compress here
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

// Stores the result rows of one file as they are parsed, so that a file's rows need not be in memory together. Each
// backend stores them its own way (schema/result_writer_backends.hpp): SQLite inserts each row through one prepared
// statement, with the ids of the group's known cases read once; PostgreSQL streams the rows with COPY into a staging
// table and moves them, new cases first, with two INSERT ... SELECT. Use inside the caller's Transaction; the
// Database must outlive it. After the last row the caller calls finish(), then refresh_run_flags (it recounts the
// run's summaries), as ingest does.
class ResultWriter {
 public:
  class Backend {
   public:
    virtual ~Backend() = default;
    virtual Result<void> add(const ingest::ResultRow& row, const model::RowFlags& flags) = 0;
    virtual Result<void> finish() = 0;
  };

  static Result<ResultWriter> open(Database& db, std::int64_t run_id, std::int64_t file_id, ingest::Axes axes);
  Result<void> add(const ingest::ResultRow& row, const model::RowFlags& flags) { return backend_->add(row, flags); }
  // Stores what add() still holds (PostgreSQL sends rows in batches): call it after the last add(), before reading.
  Result<void> finish() { return backend_->finish(); }

 private:
  explicit ResultWriter(std::unique_ptr<Backend> backend) : backend_(std::move(backend)) {}
  std::unique_ptr<Backend> backend_;
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
// Which runs a read of a platform's runs takes. A run has performance results when a row of a performance file is
// stored for it, measured or failed. A run of reference (expected-result) files alone, of accuracy rows alone, or whose
// performance files held no row (a header alone, every row refused) has none: it is never the latest run of its
// platform (`slow`, the dashboard overview, the tracking issues), where it would show an empty table in place of the
// newest run that measured something. A failed row counts: a nightly where every model failed is news.
enum class RunsWith { anything, performance };
// Newest first (created_at, then id); platform "" = every platform.
Result<std::vector<model::RunRecord>> list_runs(Database& db, const std::string& platform = {},
                                                RunsWith with = RunsWith::anything);
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
// The platform's latest run: its newest with performance results (RunsWith::anything: its newest of any kind).
Result<std::optional<model::RunRecord>> latest_run(Database& db, const std::string& platform,
                                                   RunsWith with = RunsWith::performance);
// Whether the run has performance results (RunsWith): one probe of its summaries.
Result<bool> has_performance_results(Database& db, std::int64_t run_id);
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
