// ResultWriter on SQLite: in process, a statement stepped per row costs no round trip, so each row is one step of one
// prepared INSERT, and a new model one more.
#include <string>
#include <unordered_map>

#include "schema/result_writer_backends.hpp"
#include "schema/sqlite.hpp"

namespace perftriage::schema {
namespace {

constexpr std::string_view kInsertResult =
    "INSERT INTO result_rows(run_id, file_id, case_id, line, dev, batch_size, speedup, speedup_text, "
    "abs_latency_ms, compilation_latency_s, compression_ratio, eager_peak_mem_gb, dynamo_peak_mem_gb, calls_captured, "
    "unique_graphs, graph_breaks, unique_graph_breaks, autograd_captures, autograd_compiles, cudagraph_skips, "
    "fallbacks_to_eager, accuracy, short_row, failed, accuracy_failed, extra, invalid) "
    "VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, "
    "$23, $24, $25, $26, $27)";
constexpr std::string_view kGroupCases = "SELECT model, id FROM case_models WHERE group_id = $1";
// A model of the file not stored before. Parsing keeps one row per (dev, model), so a file measuring one model on two
// devices meets it twice: the second insert is ignored and finds the first's id. New models are not remembered in
// memory: a file names each (but for that case) once. The id is read from sqlite3_last_insert_rowid, not RETURNING:
// RETURNING makes SQLite run the insert into an ephemeral table under a statement journal, and on a file of a million
// new models that cost a third of the ingest (perf, 2026-12-04; about 6x the plain insert in isolation).
constexpr std::string_view kInsertCase =
    "INSERT INTO case_models(group_id, model) VALUES($1, $2) ON CONFLICT DO NOTHING";
constexpr std::string_view kFindCase = "SELECT id FROM case_models WHERE group_id = $1 AND model = $2";

class SqliteResultWriter final : public ResultWriter::Backend {
 public:
  SqliteResultWriter(Database& db, const ResultTarget& target, Statement insert_row, Statement insert_case,
                     Statement find_case, std::unordered_map<std::string, std::int64_t> cases)
      : db_(&db),
        target_(target),
        insert_row_(std::move(insert_row)),
        insert_case_(std::move(insert_case)),
        find_case_(std::move(find_case)),
        cases_(std::move(cases)) {}

  Result<void> add(const ingest::ResultRow& row, const model::RowFlags& flags) override {
    PT_ASSIGN(const std::int64_t case_id, this->case_id(row.model));
    // Every parameter is bound on every row, so rewind() without clearing.
    insert_row_.rewind();
    bind_row(case_id, row, flags);
    return insert_row_.run();
  }
  Result<void> finish() override { return {}; }

 private:
  Result<std::int64_t> case_id(const std::string& model);
  void bind_row(std::int64_t case_id, const ingest::ResultRow& row, const model::RowFlags& f);

  Database* db_;
  ResultTarget target_;
  Statement insert_row_;
  Statement insert_case_;                                // $1, the group, stays bound
  Statement find_case_;                                  // the same
  std::unordered_map<std::string, std::int64_t> cases_;  // model -> case id of the group's cases stored before
  std::string extra_;                                    // the bound text of the current row's extra column
};

Result<std::int64_t> SqliteResultWriter::case_id(const std::string& model) {
  if (!cases_.empty()) {
    if (auto it = cases_.find(model); it != cases_.end()) return it->second;
  }
  insert_case_.rewind();
  insert_case_.bind_static(2, model);
  PT_TRY(insert_case_.run());
  const std::int64_t inserted = db_->changes() == 1 ? sqlite3_last_insert_rowid(sqlite_handle(*db_)) : 0;
  insert_case_.rewind();
  if (inserted != 0) return inserted;
  find_case_.rewind();
  find_case_.bind_static(2, model);
  PT_ASSIGN(auto id, first(find_case_, [](const Statement& s) { return s.int64(0); }));
  if (!id) return make_error(ErrorKind::internal, "no_case", "case '" + model + "' neither stored nor found");
  return *id;
}

// Text is bound without a copy: the row and extra_ stay alive until the statement has run.
void SqliteResultWriter::bind_row(std::int64_t case_id, const ingest::ResultRow& row, const model::RowFlags& f) {
  Statement& st = insert_row_;
  const std::optional<double> no_value;
  const auto& speedup = f.invalid ? no_value : row.speedup;  // migrations/006: an invalid row has no speedup
  st.bind(1, target_.run_id).bind(2, target_.file_id).bind(3, case_id).bind(4, row.line).bind_static(5, row.dev);
  st.bind(6, row.batch_size).bind(7, speedup).bind_static(8, row.speedup_text);
  st.bind(9, row.abs_latency_ms).bind(10, row.compilation_latency_s).bind(11, row.compression_ratio);
  st.bind(12, row.eager_peak_mem_gb).bind(13, row.dynamo_peak_mem_gb).bind(14, row.calls_captured);
  st.bind(15, row.unique_graphs).bind(16, row.graph_breaks).bind(17, row.unique_graph_breaks);
  st.bind(18, row.autograd_captures).bind(19, row.autograd_compiles).bind(20, row.cudagraph_skips);
  st.bind(21, row.fallbacks_to_eager).bind_static(22, row.accuracy).bind(23, static_cast<int>(row.short_row));
  st.bind(24, static_cast<int>(f.failed)).bind(25, static_cast<int>(f.accuracy_failed));
  extra_ = extra_columns_json(row);
  if (extra_.empty()) {
    st.bind_null(26);
  } else {
    st.bind_static(26, extra_);
  }
  st.bind(27, static_cast<int>(f.invalid));
}

}  // namespace

Result<std::unique_ptr<ResultWriter::Backend>> open_sqlite_result_writer(Database& db, const ResultTarget& target) {
  PT_ASSIGN(auto insert_row, Statement::prepare(db, kInsertResult));
  PT_ASSIGN(auto insert_case, Statement::prepare(db, kInsertCase));
  PT_ASSIGN(auto find_case, Statement::prepare(db, kFindCase));
  PT_ASSIGN(auto cases_st, Statement::prepare(db, kGroupCases));
  cases_st.bind(1, target.group_id);
  std::unordered_map<std::string, std::int64_t> cases;
  for (;;) {
    PT_ASSIGN(const bool row, cases_st.step());
    if (!row) break;
    cases.emplace(cases_st.text(0), cases_st.int64(1));
  }
  insert_case.bind(1, target.group_id);
  find_case.bind(1, target.group_id);
  return std::unique_ptr<ResultWriter::Backend>(std::make_unique<SqliteResultWriter>(
      db, target, std::move(insert_row), std::move(insert_case), std::move(find_case), std::move(cases)));
}

}  // namespace perftriage::schema
