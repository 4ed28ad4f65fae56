#include "schema/retention_store.hpp"

#include <nlohmann/json.hpp>

#include "schema/run_selection.hpp"

namespace perftriage::schema {
namespace {

// The candidates come from the partial index result_files_raw_kept (migration 010): only files still holding bytes,
// by upload time, so neither a batch nor a pass with nothing to do reads the stored files themselves. The bytes are in
// file_blobs; dropping them deletes the blob and clears raw_kept (the file leaves the index).
constexpr std::string_view kRawCandidates =
    "SELECT id FROM result_files WHERE uploaded_at < $1 AND raw_kept = 1 ORDER BY uploaded_at LIMIT $2";
#define PT_RAW_BYTES(D)                                                    \
  "SELECT count(*), coalesce(sum(length(raw_deflate)), 0) FROM file_blobs" \
  " WHERE file_id IN (" PT_##D##_ID_LIST("$1") ")"
constexpr DialectSql kRawBytes = PT_DIALECT_SQL(PT_RAW_BYTES);
#define PT_DROP_RAW(D) "UPDATE result_files SET raw_kept = 0 WHERE id IN (" PT_##D##_ID_LIST("$1") ")"
constexpr DialectSql kDropRaw = PT_DIALECT_SQL(PT_DROP_RAW);
#define PT_DROP_BLOBS(D) "DELETE FROM file_blobs WHERE file_id IN (" PT_##D##_ID_LIST("$1") ")"
constexpr DialectSql kDropBlobs = PT_DIALECT_SQL(PT_DROP_BLOBS);
constexpr std::string_view kCountRaw =
    "SELECT count(*), coalesce(sum(length(b.raw_deflate)), 0) FROM result_files f JOIN file_blobs b ON b.file_id = f.id"
    " WHERE f.uploaded_at < $1 AND f.raw_kept = 1";

constexpr std::string_view kDeleteDeliveries =
    "DELETE FROM webhook_deliveries WHERE delivery_id IN (SELECT delivery_id FROM webhook_deliveries"
    " WHERE state = 'done' AND received_at < $1 LIMIT $2)";
constexpr std::string_view kCountDeliveries =
    "SELECT count(*) FROM webhook_deliveries WHERE state = 'done' AND received_at < $1";

constexpr std::string_view kDeleteOutbox =
    "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE state IN ('sent', 'dry_run')"
    " AND coalesce(sent_at, created_at) < $1 LIMIT $2)";
constexpr std::string_view kCountOutbox =
    "SELECT count(*) FROM outbox WHERE state IN ('sent', 'dry_run') AND coalesce(sent_at, created_at) < $1";

constexpr std::string_view kRunAges =
    "SELECT id, key, platform, created_at, tags, " PT_RUN_HAS_PERFORMANCE " FROM runs ORDER BY created_at, id";

Result<std::int64_t> count(Database& db, std::string_view sql, const std::string& cutoff) {
  PT_ASSIGN(auto st, Statement::prepare(db, sql));
  st.bind(1, cutoff);
  return scalar(st);
}

Result<std::int64_t> delete_batch(Database& db, std::string_view sql, const std::string& cutoff, std::int64_t limit) {
  PT_ASSIGN(auto tx, Transaction::begin(db));
  PT_ASSIGN(auto st, Statement::prepare(db, sql));
  st.bind(1, cutoff).bind(2, sql_limit(limit));
  PT_TRY(st.run());
  const std::int64_t n = db.changes();
  st.reset();
  PT_TRY(tx.commit());
  return n;
}

}  // namespace

Result<DroppedRaw> drop_raw_files(Database& db, const std::string& cutoff, std::int64_t limit) {
  PT_ASSIGN(auto tx, Transaction::begin(db));
  std::vector<std::int64_t> candidates;
  {
    PT_ASSIGN(auto st, Statement::prepare(db, kRawCandidates));
    st.bind(1, cutoff).bind(2, sql_limit(limit));
    PT_ASSIGN(candidates, collect<std::int64_t>(st, [](const Statement& s) { return s.int64(0); }));
  }
  DroppedRaw out;
  if (candidates.empty()) return out;
  const std::string ids = id_list(candidates);
  {
    PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kRawBytes)));
    st.bind(1, ids);
    PT_TRY(st.step());
    out.files = st.int64(0);
    out.bytes = st.int64(1);
  }
  for (const DialectSql* sql : {&kDropRaw, &kDropBlobs}) {
    PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, *sql)));
    st.bind(1, ids);
    PT_TRY(st.run());
  }
  PT_TRY(tx.commit());
  return out;
}

Result<DroppedRaw> count_raw_files(Database& db, const std::string& cutoff) {
  PT_ASSIGN(auto st, Statement::prepare(db, kCountRaw));
  st.bind(1, cutoff);
  PT_TRY(st.step());
  return DroppedRaw{st.int64(0), st.int64(1)};
}

Result<std::int64_t> delete_done_deliveries(Database& db, const std::string& cutoff, std::int64_t limit) {
  return delete_batch(db, kDeleteDeliveries, cutoff, limit);
}
Result<std::int64_t> count_done_deliveries(Database& db, const std::string& cutoff) {
  return count(db, kCountDeliveries, cutoff);
}
Result<std::int64_t> delete_sent_outbox(Database& db, const std::string& cutoff, std::int64_t limit) {
  return delete_batch(db, kDeleteOutbox, cutoff, limit);
}
Result<std::int64_t> count_sent_outbox(Database& db, const std::string& cutoff) {
  return count(db, kCountOutbox, cutoff);
}

Result<std::vector<RunAge>> list_run_ages(Database& db) {
  PT_ASSIGN(auto st, Statement::prepare(db, kRunAges));
  return collect<RunAge>(st, [](const Statement& s) {
    RunAge r{s.int64(0), s.text(1), s.text(2), s.text(3), {}, s.int64(5) != 0};
    auto tags = nlohmann::json::parse(s.text_view(4), nullptr, false);
    if (tags.is_array()) {
      for (const auto& t : tags) {
        if (t.is_string()) r.tags.push_back(t.get<std::string>());
      }
    }
    return r;
  });
}

}  // namespace perftriage::schema
