#include "schema/run_delete.hpp"

#include "schema/audit_store.hpp"
#include "schema/backlog_store.hpp"

namespace perftriage::schema {
namespace {

constexpr std::string_view kFindRun = "SELECT id, platform, created_at FROM runs WHERE key = $1";
constexpr std::string_view kRunOf = "SELECT key, platform, created_at FROM runs WHERE id = $1";
// The findings are a JSON array inside each artifact's classify result.
constexpr DialectSql kCountArtifacts = {
    "SELECT count(*), coalesce(sum(CASE WHEN json_valid(findings) THEN json_array_length(findings, '$.findings') END),"
    " 0) FROM artifacts WHERE run_id = $1",
    "SELECT count(*), coalesce(sum(CASE WHEN jsonb_typeof(CAST(findings AS jsonb) -> 'findings') = 'array'"
    " THEN jsonb_array_length(CAST(findings AS jsonb) -> 'findings') END), 0) FROM artifacts WHERE run_id = $1"};
// Children first; each by its run_id key or an index on run_id (result_rows and run_groups lead with it,
// expectations_run, artifacts_case, result_files_run); the blobs by their owner's primary key.
constexpr std::string_view kDeletes[] = {
    "DELETE FROM result_rows WHERE run_id = $1",
    "DELETE FROM expectations WHERE run_id = $1",
    "DELETE FROM artifact_blobs WHERE artifact_id IN (SELECT id FROM artifacts WHERE run_id = $1)",
    "DELETE FROM artifacts WHERE run_id = $1",
    "DELETE FROM file_blobs WHERE file_id IN (SELECT id FROM result_files WHERE run_id = $1)",
    "DELETE FROM result_files WHERE run_id = $1",
    "DELETE FROM run_groups WHERE run_id = $1",
    "DELETE FROM runs WHERE id = $1",
};

// PRAGMA foreign_keys is a no-op inside a transaction: switched off before BEGIN, back on after COMMIT / ROLLBACK.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(Database& db) : db_(db) {
    if (db_.dialect() != Dialect::sqlite) return;  // PostgreSQL checks constraints per statement, at its own cost
    if (db_.in_transaction()) return;              // inside the caller's transaction: leave them as they are
    auto st = Statement::prepare(db_, "PRAGMA foreign_keys");
    if (!st) return;
    auto row = st->step();
    if (row && *row && st->int64(0) == 1) {
      restore_ = static_cast<bool>(db_.exec("PRAGMA foreign_keys = OFF"));
    }
  }
  ~ForeignKeysOff() {
    if (restore_) (void)db_.exec("PRAGMA foreign_keys = ON");
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

 private:
  Database& db_;
  bool restore_ = false;
};

}  // namespace

Result<DeletedRun> delete_run_rows(Database& db, std::int64_t run_id) {
  DeletedRun out;
  {
    PT_ASSIGN(auto st, Statement::prepare(db, kRunOf));
    st.bind(1, run_id);
    PT_ASSIGN(const bool row, st.step());
    if (!row) return make_error(ErrorKind::not_found, "no_run", "no run with id " + std::to_string(run_id));
    out.key = st.text(0);
    out.platform = st.text(1);
    out.created_at = st.text(2);
  }
  {
    PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kCountArtifacts)));
    st.bind(1, run_id);
    PT_TRY(st.step());
    out.artifacts = st.int64(0);
    out.findings = st.int64(1);
  }
  PT_ASSIGN(const auto cases, backlog_cases_of_run(db, run_id, out.platform));
  std::int64_t* counts[] = {&out.results, &out.expectations, nullptr, nullptr, nullptr, &out.files, nullptr, nullptr};
  static_assert(std::size(counts) == std::size(kDeletes));
  for (std::size_t i = 0; i < std::size(kDeletes); ++i) {
    PT_ASSIGN(auto st, Statement::prepare(db, kDeletes[i]));
    st.bind(1, run_id);
    PT_TRY(st.run());
    if (counts[i]) *counts[i] = db.changes();
  }
  PT_ASSIGN(const std::int64_t kept, recompute_backlog_cases(db, out.platform, cases));
  out.backlog_updated = static_cast<std::int64_t>(cases.size());
  out.backlog_removed = out.backlog_updated - kept;
  return out;
}

Result<DeletedRun> delete_run(Database& db, const std::string& key, std::string_view actor, std::string_view action) {
  ForeignKeysOff fk(db);
  PT_ASSIGN(auto tx, Transaction::begin(db));
  PT_ASSIGN(auto find, Statement::prepare(db, kFindRun));
  find.bind(1, key);
  PT_ASSIGN(const bool row, find.step());
  if (!row) return make_error(ErrorKind::not_found, "no_run", "no run '" + key + "'");
  const std::int64_t run_id = find.int64(0);
  find.reset();
  PT_ASSIGN(auto deleted, delete_run_rows(db, run_id));
  PT_TRY(append_audit(db, actor, action, key, to_json(deleted).dump()));
  PT_TRY(tx.commit());
  return deleted;
}

nlohmann::json to_json(const DeletedRun& d) {
  return {{"run", d.key},
          {"platform", d.platform},
          {"created_at", d.created_at},
          {"deleted",
           {{"runs", 1},
            {"files", d.files},
            {"results", d.results},
            {"expectations", d.expectations},
            {"artifacts", d.artifacts},
            {"findings", d.findings}}},
          {"backlog", {{"updated", d.backlog_updated}, {"removed", d.backlog_removed}}}};
}

}  // namespace perftriage::schema
