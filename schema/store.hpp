#pragma once
// The typed store over SQLite: runs, their files (raw bytes kept), parsed rows and expectations.
// Writes are called inside a Transaction (BEGIN IMMEDIATE) owned by the caller, so that one
// upload is one transaction; reads are single statements.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "ingest/records.hpp"
#include "schema/sqlite.hpp"

namespace perftriage::schema {

struct RunMeta {
  std::string key;
  std::string platform;
  std::string device;
  std::string torch_version;
  std::string commit;
  std::string created_at;  // ISO-8601 UTC; "" = now
  std::vector<std::string> tags;
  std::string environment_json = "{}";  // a JSON object
};

struct RunRecord {
  std::int64_t id = 0;
  RunMeta meta;
};

struct FileRecord {
  std::int64_t id = 0;
  std::int64_t run_id = 0;
  std::string path;
  std::string format;  // performance | accuracy | reference:<format>
  ingest::Axes axes;
  std::string sha256;
  std::int64_t size = 0;
  std::int64_t row_count = 0;
  std::int64_t duplicates_dropped = 0;
  std::string uploaded_at;
  bool raw_dropped = false;  // the retention task dropped the raw bytes (raw_files_days); the parsed rows stay
};

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

// Per-row flags decided by analyzers before insertion.
struct RowFlags {
  bool failed = false;
  bool accuracy_failed = false;
  bool invalid = false;  // stored with speedup (and eager latency) NULL: see migrations/006_invalid_flag.sql
};

struct ResultRecord {
  std::string run_key;
  std::string platform;
  std::string source;  // the file path as uploaded
  std::string suite, dtype, mode, kind, config;
  std::string model;
  std::int64_t line = 0;
  std::string dev;
  std::int64_t batch_size = 0;
  std::optional<double> speedup;
  std::string speedup_text;
  std::optional<double> abs_latency_ms, eager_latency_ms, compilation_latency_s, compression_ratio,
      eager_peak_mem_gb, dynamo_peak_mem_gb;
  std::optional<std::int64_t> calls_captured, unique_graphs, graph_breaks, unique_graph_breaks, autograd_captures,
      autograd_compiles, cudagraph_skips, fallbacks_to_eager;
  std::string accuracy;
  bool short_row = false;
  bool failed = false;
  bool accuracy_failed = false;
  bool unreliable = false;
  bool deviates = false;
  bool invalid = false;
  std::optional<std::string> expected_accuracy;
  std::string extra_json;  // "" when the row had no unknown columns
};

enum class ResultFlag { any, slow, failed, accuracy_failed, unreliable, deviates, invalid };

struct ResultFilter {
  std::vector<std::int64_t> run_ids;  // empty = every run
  std::string suite, dtype, mode, kind, config, model;  // "" = any
  ResultFlag flag = ResultFlag::any;
  double threshold = 1.0;  // for ResultFlag::slow: 0 < speedup < threshold
  std::int64_t limit = 0;  // 0 = no limit
  std::int64_t offset = 0;
};

struct MissingRecord {
  std::string suite, dtype, mode, kind, config, model;
  std::string reason;  // "previous_run" | "reference"
  std::string evidence;  // the previous run's key, or the reference file's path
};

struct RunCounts {
  std::int64_t files = 0, rows = 0, slow = 0, failed = 0, accuracy_failed = 0, unreliable = 0, deviates = 0,
               invalid = 0;
};

class Store;

// Inserts the result rows of one stored file one at a time (the statement is prepared once), so that a file's
// rows need not be in memory together. Use inside the caller's Transaction; the Store must outlive it.
class ResultWriter {
 public:
  static Result<ResultWriter> open(Store& store, std::int64_t run_id, std::int64_t file_id, ingest::Axes axes);
  Result<void> add(const ingest::ResultRow& row, const RowFlags& flags);

 private:
  ResultWriter(Statement st, std::int64_t run_id, std::int64_t file_id, ingest::Axes axes)
      : st_(std::move(st)), run_id_(run_id), file_id_(file_id), axes_(std::move(axes)) {}
  Statement st_;
  std::int64_t run_id_;
  std::int64_t file_id_;
  ingest::Axes axes_;
  std::string extra_text_;
};

class Store {
 public:
  // Opens the database file (":memory:" in tests) and migrates it to the latest schema.
  static Result<Store> open(const std::string& path);

  Database& db() noexcept { return db_; }

  // --- writes (inside the caller's Transaction) ---
  // Creates the run, or returns the existing one's id; an existing key of another platform is a conflict.
  // Tags are merged, empty device/torch_version/commit are filled, environment keys are merged.
  Result<std::int64_t> ensure_run(const RunMeta& meta);
  Result<std::optional<FileRecord>> live_file(std::int64_t run_id, std::string_view path);
  Result<std::int64_t> insert_file(std::int64_t run_id, const NewFile& file);
  // Stores `file` in place of the live file old_id: the old file's rows and expectations are deleted,
  // its record is kept (superseded_by = the new id) for audit. Returns the new file's id.
  Result<std::int64_t> replace_file(std::int64_t run_id, std::int64_t old_id, const NewFile& file);
  Result<void> insert_results(std::int64_t run_id, std::int64_t file_id, const ingest::Axes& axes,
                              const std::vector<ingest::ResultRow>& rows, const std::vector<RowFlags>& flags);
  Result<void> insert_expectations(std::int64_t run_id, std::int64_t file_id,
                                   const std::vector<ingest::Expectation>& rows);
  // Recomputes the relational flags of a run: `unreliable` (speedup of a model failing accuracy in
  // the same run), `expected_accuracy` and `deviates` (pass/fail differs from the run's reference).
  Result<void> refresh_run_flags(std::int64_t run_id);

  // --- reads ---
  Result<std::vector<RunRecord>> list_runs(const std::string& platform = {});  // newest first
  Result<std::optional<RunRecord>> find_run(const std::string& key);
  Result<std::optional<RunRecord>> latest_run(const std::string& platform);
  Result<std::optional<RunRecord>> previous_run(const RunRecord& run);  // same platform, just before
  Result<std::vector<FileRecord>> run_files(std::int64_t run_id);
  // The file as uploaded; not_found with code "raw_dropped" once retention dropped its raw bytes.
  Result<std::string> file_bytes(std::int64_t file_id);
  Result<RunCounts> run_counts(std::int64_t run_id, double threshold);
  Result<std::vector<ResultRecord>> results(const ResultFilter& filter);
  // Models expected in this run (by its previous run of the platform, or by its reference files)
  // that have no row, for the suite/dtype/mode/kind groups the run has files for.
  Result<std::vector<MissingRecord>> missing(const RunRecord& run);

 private:
  explicit Store(Database db) : db_(std::move(db)) {}
  Database db_;
};

std::string now_iso8601();

}  // namespace perftriage::schema
