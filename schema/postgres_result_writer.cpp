// ResultWriter on PostgreSQL: every statement is a round trip to the server, so rows are not inserted one by one (nor
// in multi-row INSERTs, whose parameters the server parses and plans each time). They are written in COPY's text format
// to a buffer, streamed with COPY into a temporary staging table of this connection, and moved with two statements:
// the file's new models become cases, then every staged row becomes a result row joined to its case.
#include <charconv>
#include <string>

#include "schema/postgres.hpp"
#include "schema/result_writer_backends.hpp"

namespace perftriage::schema {
namespace {

// The staging table: a result row before it has a case id. Temporary (this session's alone, never logged); emptied
// after each move, and a failed transaction takes back what its COPY staged, so it is empty whenever a move starts.
constexpr std::string_view kCreateStage =
    "CREATE TEMPORARY TABLE IF NOT EXISTS pt_stage_rows (line BIGINT, model TEXT, dev TEXT, batch_size BIGINT, "
    "speedup DOUBLE PRECISION, speedup_text TEXT, abs_latency_ms DOUBLE PRECISION, "
    "compilation_latency_s DOUBLE PRECISION, compression_ratio DOUBLE PRECISION, eager_peak_mem_gb DOUBLE PRECISION, "
    "dynamo_peak_mem_gb DOUBLE PRECISION, calls_captured BIGINT, unique_graphs BIGINT, graph_breaks BIGINT, "
    "unique_graph_breaks BIGINT, autograd_captures BIGINT, autograd_compiles BIGINT, cudagraph_skips BIGINT, "
    "fallbacks_to_eager BIGINT, accuracy TEXT, short_row BIGINT, failed BIGINT, accuracy_failed BIGINT, extra TEXT, "
    "invalid BIGINT)";
constexpr std::string_view kCopyStage = "COPY pt_stage_rows FROM STDIN";
// New models get their ids in the order the file first names them, as on SQLite. The anti-join keeps models the
// group already has away from the insert: ON CONFLICT alone sends every staged model through speculative insertion,
// which cost 10.5 ms for a file of 2,000 known models against 1.2 ms filtered (EXPLAIN ANALYZE, PostgreSQL 15).
// ON CONFLICT stays for a model stored by another writer meanwhile.
constexpr std::string_view kInsertCases =
    "INSERT INTO case_models(group_id, model) SELECT $1, s.model FROM pt_stage_rows s WHERE NOT EXISTS "
    "(SELECT 1 FROM case_models m WHERE m.group_id = $1 AND m.model = s.model) GROUP BY s.model ORDER BY min(s.line) "
    "ON CONFLICT DO NOTHING";
constexpr std::string_view kMoveRows =
    "INSERT INTO result_rows(run_id, file_id, case_id, line, dev, batch_size, speedup, speedup_text, "
    "abs_latency_ms, compilation_latency_s, compression_ratio, eager_peak_mem_gb, dynamo_peak_mem_gb, calls_captured, "
    "unique_graphs, graph_breaks, unique_graph_breaks, autograd_captures, autograd_compiles, cudagraph_skips, "
    "fallbacks_to_eager, accuracy, short_row, failed, accuracy_failed, extra, invalid) "
    "SELECT $1, $2, m.id, s.line, s.dev, s.batch_size, s.speedup, s.speedup_text, s.abs_latency_ms, "
    "s.compilation_latency_s, s.compression_ratio, s.eager_peak_mem_gb, s.dynamo_peak_mem_gb, s.calls_captured, "
    "s.unique_graphs, s.graph_breaks, s.unique_graph_breaks, s.autograd_captures, s.autograd_compiles, "
    "s.cudagraph_skips, s.fallbacks_to_eager, s.accuracy, s.short_row, s.failed, s.accuracy_failed, s.extra, s.invalid "
    "FROM pt_stage_rows s JOIN case_models m ON m.group_id = $3 AND m.model = s.model";
constexpr std::string_view kEmptyStage = "TRUNCATE pt_stage_rows";
// Rows are moved once this much text is buffered, and at finish(): memory stays bounded on a file of any size.
constexpr std::size_t kFlushBytes = 8u << 20;

// COPY's text format: a tab between fields, \N for NULL, and a backslash, tab, newline or carriage return in a value
// escaped.
void put_text(std::string& out, std::string_view v) {
  for (const char c : v) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  out += '\t';
}
void put_null(std::string& out) { out += "\\N\t"; }
void put(std::string& out, std::int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  out += '\t';
}
void put(std::string& out, double v) {  // the shortest text that reads back as the same double, as bind_real
  char buf[32];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  out += '\t';
}
template <class T>
void put(std::string& out, const std::optional<T>& v) {
  if (v) {
    put(out, *v);
  } else {
    put_null(out);
  }
}
void put(std::string& out, bool v) { put(out, std::int64_t{v ? 1 : 0}); }

class PostgresResultWriter final : public ResultWriter::Backend {
 public:
  PostgresResultWriter(Database& db, const ResultTarget& target) : db_(&db), target_(target) {}

  Result<void> add(const ingest::ResultRow& row, const model::RowFlags& f) override {
    const std::optional<double> no_value;
    put(buffer_, row.line);
    put_text(buffer_, row.model);
    put_text(buffer_, row.dev);
    put(buffer_, row.batch_size);
    put(buffer_, f.invalid ? no_value : row.speedup);  // migrations/006: an invalid row has no speedup
    put_text(buffer_, row.speedup_text);
    for (const auto& v : {row.abs_latency_ms, row.compilation_latency_s, row.compression_ratio, row.eager_peak_mem_gb,
                          row.dynamo_peak_mem_gb}) {
      put(buffer_, v);
    }
    for (const auto& v : {row.calls_captured, row.unique_graphs, row.graph_breaks, row.unique_graph_breaks,
                          row.autograd_captures, row.autograd_compiles, row.cudagraph_skips, row.fallbacks_to_eager}) {
      put(buffer_, v);
    }
    put_text(buffer_, row.accuracy);
    put(buffer_, row.short_row);
    put(buffer_, f.failed);
    put(buffer_, f.accuracy_failed);
    const std::string extra = extra_columns_json(row);
    if (extra.empty()) {
      put_null(buffer_);
    } else {
      put_text(buffer_, extra);
    }
    put(buffer_, f.invalid);
    buffer_.back() = '\n';  // the last field ends the line, not a tab
    ++buffered_;
    return buffer_.size() >= kFlushBytes ? flush() : Result<void>{};
  }

  Result<void> finish() override { return flush(); }

 private:
  Result<void> flush();

  Database* db_;
  ResultTarget target_;
  std::string buffer_;
  std::int64_t buffered_ = 0;  // rows in buffer_
  bool staged_ = false;        // the staging table exists on this connection and is empty
};

Result<void> PostgresResultWriter::flush() {
  if (buffer_.empty()) return {};
  if (!staged_) {
    PT_TRY(db_->exec(kCreateStage));
    staged_ = true;
  }
  PT_ASSIGN(const std::int64_t copied, postgres_connection(*db_)->copy_in(kCopyStage, buffer_));
  if (copied != buffered_) {
    return make_error(ErrorKind::internal, "db_error",
                      "COPY stored " + std::to_string(copied) + " of " + std::to_string(buffered_) + " rows");
  }
  buffer_.clear();
  buffered_ = 0;
  PT_ASSIGN(auto cases, Statement::prepare(*db_, kInsertCases));
  cases.bind(1, target_.group_id);
  PT_TRY(cases.run());
  PT_ASSIGN(auto move, Statement::prepare(*db_, kMoveRows));
  move.bind(1, target_.run_id).bind(2, target_.file_id).bind(3, target_.group_id);
  PT_TRY(move.run());
  return db_->exec(kEmptyStage);
}

}  // namespace

Result<std::unique_ptr<ResultWriter::Backend>> open_postgres_result_writer(Database& db, const ResultTarget& target) {
  if (postgres_connection(db) == nullptr)
    return make_error(ErrorKind::internal, "db_error", "not a PostgreSQL connection");
  return std::unique_ptr<ResultWriter::Backend>(std::make_unique<PostgresResultWriter>(db, target));
}

}  // namespace perftriage::schema
