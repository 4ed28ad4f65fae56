#include "schema/tracker_store.hpp"

#include <nlohmann/json.hpp>

#include "schema/store.hpp"

namespace perftriage::schema {
namespace {

// A later copy of an issue replaces the stored one whole: GitHub sends the issue as it is now.
constexpr std::string_view kUpsertIssue =
    "INSERT INTO tracker_issues(repo, number, title, body, labels, state, updated_at, synced_at) "
    "VALUES($1, $2, $3, $4, $5, $6, $7, $8) "
    "ON CONFLICT(repo, number) DO UPDATE SET title = excluded.title, body = excluded.body, labels = excluded.labels, "
    "state = excluded.state, updated_at = excluded.updated_at, synced_at = excluded.synced_at";
constexpr std::string_view kUpsertSync =
    "INSERT INTO tracker_sync(repo, since, cursor_updated_at, next_page, finished, last_error, updated_at) "
    "VALUES($1, $2, $3, $4, $5, $6, $7) "
    "ON CONFLICT(repo) DO UPDATE SET since = excluded.since, cursor_updated_at = excluded.cursor_updated_at, "
    "next_page = excluded.next_page, finished = excluded.finished, last_error = excluded.last_error, "
    "updated_at = excluded.updated_at";
constexpr std::string_view kFindSync =
    "SELECT repo, since, cursor_updated_at, next_page, finished, last_error, updated_at FROM tracker_sync "
    "WHERE repo = $1";
// The primary key's order: (repo, number).
constexpr std::string_view kListIssues =
    "SELECT repo, number, title, body, labels, state, updated_at FROM tracker_issues WHERE repo = $1 ORDER BY number";
constexpr std::string_view kCountIssues = "SELECT count(*) FROM tracker_issues WHERE repo = $1";

std::string labels_json(const std::vector<std::string>& labels) {
  return nlohmann::json(labels).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::vector<std::string> parse_labels(std::string_view text) {
  std::vector<std::string> out;
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& l : j) {
    if (l.is_string()) out.push_back(l.get<std::string>());
  }
  return out;
}

Result<void> upsert_sync(Database& db, const TrackerSyncState& p, const std::string& now) {
  PT_ASSIGN(auto st, Statement::prepare(db, kUpsertSync));
  st.bind(1, p.repo).bind(2, p.since).bind(3, p.cursor_updated_at).bind(4, p.next_page);
  st.bind(5, p.finished ? 1 : 0).bind(6, p.last_error).bind(7, now);
  return st.run();
}

}  // namespace

Result<std::int64_t> store_tracker_page(Database& db, const std::vector<TrackerIssue>& issues,
                                        const TrackerSyncState& progress) {
  const std::string now = now_iso8601();
  PT_ASSIGN(auto tx, Transaction::begin(db));
  PT_ASSIGN(auto st, Statement::prepare(db, kUpsertIssue));
  std::int64_t written = 0;
  for (const auto& issue : issues) {
    if (issue.repo != progress.repo) {
      return make_error(ErrorKind::internal, "tracker_repo_mismatch",
                        "issue of " + issue.repo + " stored with the sync of " + progress.repo);
    }
    st.bind(1, issue.repo).bind(2, issue.number).bind(3, issue.title).bind(4, issue.body);
    st.bind(5, labels_json(issue.labels)).bind(6, issue.state).bind(7, issue.updated_at).bind(8, now);
    PT_TRY(st.run());
    st.reset();
    ++written;
  }
  PT_TRY(upsert_sync(db, progress, now));
  PT_TRY(tx.commit());
  return written;
}

Result<void> save_tracker_sync(Database& db, const TrackerSyncState& progress) {
  return upsert_sync(db, progress, now_iso8601());
}

Result<std::optional<TrackerSyncState>> find_tracker_sync(Database& db, std::string_view repo) {
  PT_ASSIGN(auto st, Statement::prepare(db, kFindSync));
  st.bind(1, std::string(repo));
  return first(st, [](const Statement& s) {
    return TrackerSyncState{s.text(0), s.text(1), s.text(2), s.int64(3), s.int64(4) != 0, s.text(5), s.text(6)};
  });
}

Result<std::vector<TrackerIssue>> list_tracker_issues(Database& db, std::string_view repo) {
  PT_ASSIGN(auto st, Statement::prepare(db, kListIssues));
  st.bind(1, std::string(repo));
  return collect<TrackerIssue>(st, [](const Statement& s) {
    return TrackerIssue{s.text(0), s.int64(1), s.text(2), s.text(3), parse_labels(s.text_view(4)),
                        s.text(5), s.text(6)};
  });
}

Result<std::int64_t> count_tracker_issues(Database& db, std::string_view repo) {
  PT_ASSIGN(auto st, Statement::prepare(db, kCountIssues));
  st.bind(1, std::string(repo));
  return scalar(st);
}

}  // namespace perftriage::schema
