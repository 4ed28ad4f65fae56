#include "schema/artifact_store.hpp"

#include "schema/blob_codec.hpp"
#include "schema/store.hpp"

namespace perftriage::schema {
namespace {

constexpr std::string_view kInsertArtifact =
    "INSERT INTO artifacts(run_id, suite, dtype, mode, model, config, name, role, kind, sha256, size, compression, "
    "stored_size, findings, created_at) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) "
    "RETURNING id";
// The stored bytes live beside the artifact (migration 010), so that listing artifacts never reads them.
constexpr std::string_view kInsertArtifactBlob = "INSERT INTO artifact_blobs(artifact_id, raw) VALUES($1, $2)";
constexpr std::string_view kSelectArtifactColumns =
    "SELECT a.id, a.run_id, r.key, a.suite, a.dtype, a.mode, a.model, a.config, a.name, a.role, a.kind, a.sha256, "
    "a.size, a.stored_size, a.compression, a.findings, a.created_at FROM artifacts a JOIN runs r ON r.id = a.run_id ";
constexpr std::string_view kWhereSameBytes =
    "WHERE a.run_id = $1 AND a.suite = $2 AND a.dtype = $3 AND a.mode = $4 AND a.model = $5 AND a.sha256 = $6";
constexpr std::string_view kWhereCase =
    "WHERE a.run_id = $1 AND a.suite = $2 AND a.dtype = $3 AND a.mode = $4 AND a.model = $5 "
    "AND ($6 = '' OR a.config = $6) ORDER BY a.id";
constexpr std::string_view kWhereId = "WHERE a.id = $1";
// Only the findings member is read, which keeps the census (large for real traces) out of the slow list.
#define PT_SQLITE_FINDINGS(a) "json_extract(" a "findings, '$.findings')"
#define PT_POSTGRES_FINDINGS(a) "CAST(" a "findings AS jsonb) -> 'findings'"
#define PT_RUN_FINDINGS(D) \
  "SELECT id, suite, dtype, mode, model, config, name, role, " PT_##D##_FINDINGS("") " FROM artifacts" \
  " WHERE run_id = $1 ORDER BY id"
constexpr DialectSql kRunFindings = PT_DIALECT_SQL(PT_RUN_FINDINGS);
#define PT_MODEL_FINDINGS(D) \
  "SELECT a.id, a.suite, a.dtype, a.mode, a.model, a.config, a.name, a.role, " PT_##D##_FINDINGS("a.") ","    \
  " r.key FROM artifacts a JOIN runs r ON r.id = a.run_id "                                                     \
  "WHERE r.platform = $1 AND a.suite = $2 AND a.model = $3 ORDER BY r.created_at, r.id, a.id"
constexpr DialectSql kModelFindings = PT_DIALECT_SQL(PT_MODEL_FINDINGS);
constexpr std::string_view kSelectRaw =
    "SELECT a.compression, a.size, b.raw FROM artifacts a JOIN artifact_blobs b ON b.artifact_id = a.id WHERE a.id = "
    "$1";

bool is_gzip(std::string_view bytes) {
  return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b;
}

// Columns of kRunFindings / kModelFindings: id, suite, dtype, mode, model, config, name, role, findings.
model::ArtifactFindings read_findings(const Statement& st) {
  model::ArtifactFindings f;
  f.id = st.int64(0);
  f.case_ref = {st.text(1), st.text(2), st.text(3), st.text(4), st.text(5)};
  f.name = st.text(6);
  f.role = st.text(7);
  f.findings_json = st.is_null(8) ? "[]" : st.text(8);
  return f;
}

model::ArtifactRecord read_artifact(const Statement& st) {
  model::ArtifactRecord a;
  int c = 0;
  a.id = st.int64(c++);
  a.run_id = st.int64(c++);
  a.run_key = st.text(c++);
  a.case_ref.suite = st.text(c++);
  a.case_ref.dtype = st.text(c++);
  a.case_ref.mode = st.text(c++);
  a.case_ref.model = st.text(c++);
  a.case_ref.config = st.text(c++);
  a.name = st.text(c++);
  a.role = st.text(c++);
  a.kind = st.text(c++);
  a.sha256 = st.text(c++);
  a.size = st.int64(c++);
  a.stored_size = st.int64(c++);
  a.compression = st.text(c++);
  a.result_json = st.text(c++);
  a.created_at = st.text(c++);
  return a;
}

Statement& bind_case(Statement& st, std::int64_t run_id, const model::CaseRef& c) {
  return st.bind(1, run_id).bind(2, c.suite).bind(3, c.dtype).bind(4, c.mode).bind(5, c.model);
}

}  // namespace

Result<std::int64_t> insert_artifact(Database& db, const NewArtifact& a) {
  PT_ASSIGN(auto st, Statement::prepare(db, kInsertArtifact));
  const bool gzip = is_gzip(a.bytes);
  const std::string deflated = gzip ? std::string{} : deflate_bytes(a.bytes);
  const std::string_view stored = gzip ? a.bytes : std::string_view(deflated);
  bind_case(st, a.run_id, a.case_ref)
      .bind(6, a.case_ref.config)
      .bind(7, a.name)
      .bind(8, a.role)
      .bind(9, a.kind)
      .bind(10, a.sha256)
      .bind(11, static_cast<std::int64_t>(a.bytes.size()))
      .bind(12, gzip ? "gzip" : "deflate")
      .bind(13, static_cast<std::int64_t>(stored.size()))
      .bind(14, a.result_json)
      .bind(15, now_iso8601());
  PT_ASSIGN(const std::int64_t id, scalar(st));
  PT_ASSIGN(auto blob, Statement::prepare(db, kInsertArtifactBlob));
  blob.bind(1, id).bind_blob_static(2, stored);
  PT_TRY(blob.run());
  return id;
}

Result<std::optional<model::ArtifactRecord>> find_artifact(Database& db, std::int64_t run_id,
                                                           const model::CaseRef& case_ref, std::string_view sha256) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectArtifactColumns) + std::string(kWhereSameBytes)));
  bind_case(st, run_id, case_ref).bind(6, sha256);
  return first(st, read_artifact);
}

Result<std::vector<model::ArtifactRecord>> case_artifacts(Database& db, std::int64_t run_id,
                                                          const model::CaseRef& case_ref) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectArtifactColumns) + std::string(kWhereCase)));
  bind_case(st, run_id, case_ref).bind(6, case_ref.config);
  return collect<model::ArtifactRecord>(st, read_artifact);
}

Result<std::vector<model::ArtifactFindings>> run_artifact_findings(Database& db, std::int64_t run_id) {
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kRunFindings)));
  st.bind(1, run_id);
  return collect<model::ArtifactFindings>(st, read_findings);
}

Result<std::vector<model::ArtifactFindings>> model_artifact_findings(Database& db, const std::string& platform,
                                                                     const std::string& suite,
                                                                     const std::string& model) {
  PT_ASSIGN(const std::string stored, stored_platform(db, platform));
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kModelFindings)));
  st.bind(1, stored).bind(2, suite).bind(3, model);
  return collect<model::ArtifactFindings>(st, [](const Statement& s) {
    model::ArtifactFindings f = read_findings(s);
    f.run_key = s.text(9);
    return f;
  });
}

Result<std::optional<model::ArtifactRecord>> get_artifact(Database& db, std::int64_t id) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectArtifactColumns) + std::string(kWhereId)));
  st.bind(1, id);
  return first(st, read_artifact);
}

Result<std::optional<std::string>> artifact_bytes(Database& db, std::int64_t id) {
  PT_ASSIGN(auto st, Statement::prepare(db, kSelectRaw));
  st.bind(1, id);
  PT_ASSIGN(const bool row, st.step());
  if (!row) return std::optional<std::string>{};
  std::string raw = st.blob(2);
  if (st.text(0) == "gzip") return std::optional<std::string>{std::move(raw)};
  PT_ASSIGN(auto inflated, inflate_bytes(raw, static_cast<std::size_t>(st.int64(1))));
  return std::optional<std::string>{std::move(inflated)};
}

}  // namespace perftriage::schema
