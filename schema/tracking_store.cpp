#include "schema/tracking_store.hpp"

#include "schema/store.hpp"

namespace perftriage::schema {
namespace {

constexpr std::string_view kDue =
    "SELECT scope, changed_ms FROM tracking_queue WHERE handled_ms < changed_ms AND changed_ms <= $1"
    " ORDER BY changed_ms LIMIT $2";
constexpr std::string_view kHandled =
    "UPDATE tracking_queue SET handled_ms = changed_ms WHERE scope = $1 AND changed_ms = $2";
constexpr std::string_view kSelectState =
    "SELECT fingerprint, repo, platform, release, kind, run_id, is_open, published, body_sha256, updated_at"
    " FROM tracking_state ";
constexpr std::string_view kSaveState =
    "INSERT INTO tracking_state(fingerprint, repo, platform, release, kind, run_id, is_open, published, body_sha256,"
    " updated_at) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
    "ON CONFLICT(fingerprint) DO UPDATE SET run_id = excluded.run_id, is_open = excluded.is_open,"
    " published = excluded.published, body_sha256 = excluded.body_sha256, updated_at = excluded.updated_at";

TrackingState read_state(const Statement& s) {
  TrackingState t;
  t.fingerprint = s.text(0);
  t.repo = s.text(1);
  t.platform = s.text(2);
  t.release = s.text(3);
  t.kind = s.text(4);
  t.run_id = s.opt_int64(5);
  t.is_open = s.int64(6) != 0;
  t.published = s.text(7);
  t.body_sha256 = s.text(8);
  t.updated_at = s.text(9);
  return t;
}

}  // namespace

Result<std::vector<TrackingDue>> due_tracking(Database& db, std::int64_t quiet_before_ms, std::int64_t limit) {
  PT_ASSIGN(auto st, Statement::prepare(db, kDue));
  st.bind(1, quiet_before_ms).bind(2, sql_limit(limit));
  return collect<TrackingDue>(st, [](const Statement& s) { return TrackingDue{s.text(0), s.int64(1)}; });
}

Result<void> mark_tracking_handled(Database& db, const TrackingDue& due) {
  PT_ASSIGN(auto st, Statement::prepare(db, kHandled));
  st.bind(1, due.scope).bind(2, due.changed_ms);
  return st.run();
}

Result<std::optional<TrackingState>> tracking_state(Database& db, const std::string& fingerprint) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectState) + "WHERE fingerprint = $1"));
  st.bind(1, fingerprint);
  return first(st, read_state);
}

Result<std::vector<TrackingState>> tracking_states(Database& db, const std::string& platform) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kSelectState) +
                                                "WHERE $1 = '' OR platform = $1 COLLATE NOCASE ORDER BY fingerprint"));
  st.bind(1, platform);
  return collect<TrackingState>(st, read_state);
}

Result<void> save_tracking_state(Database& db, const TrackingState& t) {
  PT_ASSIGN(auto st, Statement::prepare(db, kSaveState));
  st.bind(1, t.fingerprint).bind(2, t.repo).bind(3, t.platform).bind(4, t.release).bind(5, t.kind);
  st.bind(6, t.run_id).bind(7, t.is_open ? 1 : 0).bind(8, t.published).bind(9, t.body_sha256);
  st.bind(10, t.updated_at.empty() ? now_iso8601() : t.updated_at);
  return st.run();
}

Result<void> enqueue_notification(Database& db, const std::string& url, const std::string& event,
                                  const std::string& body) {
  PT_ASSIGN(auto st, Statement::prepare(db,
                                        "INSERT INTO notifications(url, event, body, created_at)"
                                        " VALUES($1, $2, $3, $4)"));
  st.bind(1, url).bind(2, event).bind(3, body).bind(4, now_iso8601());
  return st.run();
}

namespace {
Notification read_notification(const Statement& s) {
  return Notification{s.int64(0), s.text(1), s.text(2), s.text(3), s.text(4), s.int64(5)};
}
}  // namespace

Result<std::vector<Notification>> due_notifications(Database& db, std::int64_t now_ms, std::int64_t limit) {
  PT_ASSIGN(auto st, Statement::prepare(db,
                                        "SELECT id, url, event, body, state, attempts FROM notifications"
                                        " WHERE state = 'pending' AND next_attempt_ms <= $1 ORDER BY id LIMIT $2"));
  st.bind(1, now_ms).bind(2, sql_limit(limit));
  return collect<Notification>(st, read_notification);
}

Result<void> record_notification_attempt(Database& db, std::int64_t id, bool sent, std::int64_t next_attempt_ms,
                                         const std::string& error) {
  PT_ASSIGN(auto st,
            Statement::prepare(
                db,
                "UPDATE notifications SET attempts = attempts + 1, state = CASE WHEN $2 <> 0 THEN 'sent'"
                " WHEN $3 < 0 THEN 'failed' ELSE 'pending' END, next_attempt_ms = CASE WHEN $3 > 0 THEN $3 ELSE 0 END,"
                " last_error = $4 WHERE id = $1"));
  st.bind(1, id).bind(2, sent ? 1 : 0).bind(3, next_attempt_ms).bind(4, error);
  return st.run();
}

Result<std::vector<Notification>> list_notifications(Database& db, std::int64_t limit) {
  PT_ASSIGN(auto st, Statement::prepare(db,
                                        "SELECT id, url, event, body, state, attempts FROM notifications"
                                        " ORDER BY id DESC LIMIT $1"));
  st.bind(1, sql_limit(limit));
  return collect<Notification>(st, read_notification);
}

Result<std::optional<std::string>> run_key_by_id(Database& db, std::int64_t id) {
  PT_ASSIGN(auto st, Statement::prepare(db, "SELECT key FROM runs WHERE id = $1"));
  st.bind(1, id);
  return first(st, [](const Statement& s) { return s.text(0); });
}

}  // namespace perftriage::schema
