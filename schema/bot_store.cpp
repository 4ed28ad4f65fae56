#include "schema/bot_store.hpp"

#include <map>

#include "common/json_text.hpp"
#include "schema/issue_case_store.hpp"
#include "schema/store.hpp"

namespace perftriage::schema {
namespace {

using nlohmann::json;

constexpr std::string_view kInsertDelivery =
    "INSERT INTO webhook_deliveries(delivery_id, event, action, received_at) VALUES($1, $2, $3, $4) "
    "ON CONFLICT(delivery_id) DO NOTHING";
constexpr std::string_view kClaimDelivery =
    "INSERT INTO webhook_deliveries(delivery_id, event, action, received_at, state, attempts, payload, lease_until) "
    "VALUES($1, $2, $3, $4, 'processing', 1, $5, $6) ON CONFLICT(delivery_id) DO NOTHING";
constexpr std::string_view kDeliveryState =
    "SELECT state, attempts, lease_until FROM webhook_deliveries WHERE delivery_id = $1";
constexpr std::string_view kRetryDelivery =
    "UPDATE webhook_deliveries SET attempts = attempts + 1, payload = COALESCE(payload, $2), lease_until = $3 "
    "WHERE delivery_id = $1";
constexpr std::string_view kFinishDelivery =
    "UPDATE webhook_deliveries SET state = 'done', payload = NULL, last_error = $2 "
    "WHERE delivery_id = $1 AND state = 'processing'";
constexpr std::string_view kDeliveryError =
    "UPDATE webhook_deliveries SET last_error = $2, lease_until = 0 WHERE delivery_id = $1";
constexpr std::string_view kReleaseDeliveryLeases =
    "UPDATE webhook_deliveries SET lease_until = 0 WHERE state = 'processing' AND lease_until <> 0";
constexpr std::string_view kQuarantineDelivery =
    "UPDATE webhook_deliveries SET state = 'quarantined', last_error = $2 WHERE delivery_id = $1";
#define PT_SELECT_DELIVERIES(D)                                                                               \
  "SELECT delivery_id, event, action, state, attempts, CASE WHEN state = 'done' THEN NULL ELSE payload END, " \
  "last_error, received_at FROM webhook_deliveries WHERE ($1 = '' OR state = $1) "                            \
  "ORDER BY received_at DESC, " PT_##D##_ROW_ADDRESS " DESC LIMIT $2"
constexpr DialectSql kSelectDeliveries = PT_DIALECT_SQL(PT_SELECT_DELIVERIES);
constexpr std::string_view kCountDeliveries = "SELECT count(*) FROM webhook_deliveries WHERE ($1 = '' OR state = $1)";
constexpr std::string_view kInsertAction =
    "INSERT INTO outbox(repo, issue_number, kind, payload, state, attempts, next_attempt_at, created_at) "
    "VALUES($1, $2, $3, $4, $5, 0, $6, $7) RETURNING id";
constexpr std::string_view kMarkSent =
    "UPDATE outbox SET state = 'sent', attempts = $2, last_error = '', sent_at = $3 WHERE id = $1";
constexpr std::string_view kScheduleRetry =
    "UPDATE outbox SET attempts = $2, next_attempt_at = $3, last_error = $4 WHERE id = $1";
constexpr std::string_view kMarkFailed =
    "UPDATE outbox SET state = 'failed', attempts = $2, last_error = $3 WHERE id = $1";
constexpr std::string_view kOutboxColumns =
    "SELECT id, repo, issue_number, kind, payload, state, attempts, next_attempt_at, last_error, created_at, "
    "COALESCE(sent_at, '') FROM outbox ";
// claim_due: the pick and the lease in one statement, the row read back (its next attempt the lease's end) through the
// same columns as kOutboxColumns.
#define PT_CLAIM_PICK "SELECT id FROM outbox WHERE state = 'pending' AND next_attempt_at <= $1 ORDER BY id LIMIT 1"
#define PT_CLAIM_RETURNING                                                                                       \
  " RETURNING id, repo, issue_number, kind, payload, state, attempts, next_attempt_at, last_error, created_at, " \
  "COALESCE(sent_at, '')"
constexpr std::string_view kClaimDue =
    "UPDATE outbox SET next_attempt_at = $2 WHERE id = (" PT_CLAIM_PICK ")" PT_CLAIM_RETURNING;
constexpr std::string_view kClaimDuePostgres =
    "UPDATE outbox SET next_attempt_at = $2 WHERE id = (" PT_CLAIM_PICK " FOR UPDATE SKIP LOCKED)" PT_CLAIM_RETURNING;
#undef PT_CLAIM_PICK
#undef PT_CLAIM_RETURNING
constexpr std::string_view kReleaseClaim = "UPDATE outbox SET next_attempt_at = $2 WHERE id = $1 AND state = 'pending'";
constexpr std::string_view kUpsertBotLabel =
    "INSERT INTO issue_labels(repo, number, label, applied_by_bot) VALUES($1, $2, $3, 1) "
    "ON CONFLICT(repo, number, label) DO UPDATE SET applied_by_bot = 1";
constexpr std::string_view kHumanRemoval =
    "UPDATE issue_labels SET removed_by_human = 1 WHERE repo = $1 AND number = $2 AND label = $3 "
    "AND applied_by_bot = 1";
// A label a human added and a human removed again leaves no trace: it was never the labeler's, and kept it would
// count as added by hand (label_feedback_store.hpp).
constexpr std::string_view kForgetHumanLabel =
    "DELETE FROM issue_labels WHERE repo = $1 AND number = $2 AND label = $3 AND applied_by_bot = 0";
constexpr std::string_view kHumanLabel =
    "INSERT INTO issue_labels(repo, number, label, applied_by_bot, removed_by_human) VALUES($1, $2, $3, 0, 0) "
    "ON CONFLICT(repo, number, label) DO UPDATE SET removed_by_human = 0";
constexpr std::string_view kSuppressed =
    "SELECT label FROM issue_labels WHERE repo = $1 AND number = $2 AND removed_by_human = 1";
constexpr std::string_view kUpsertComment =
    "INSERT INTO bot_comments(repo, number, comment_id) VALUES($1, $2, $3) "
    "ON CONFLICT(repo, number) DO UPDATE SET comment_id = excluded.comment_id";
constexpr std::string_view kSelectComment = "SELECT comment_id FROM bot_comments WHERE repo = $1 AND number = $2";
constexpr std::string_view kUpsertLabeledIssue =
    "INSERT INTO labeled_issues(repo, number, title, axes, labels, result, updated_at) "
    "VALUES($1, $2, $3, $4, $5, $6, $7) ON CONFLICT(repo, number) DO UPDATE SET title = excluded.title, "
    "axes = excluded.axes, labels = excluded.labels, result = excluded.result, updated_at = excluded.updated_at";
#define PT_SELECT_LABELED_ISSUES(D)                                                   \
  "SELECT repo, number, title, axes, labels, result, updated_at FROM labeled_issues " \
  "ORDER BY updated_at DESC, " PT_##D##_ROW_ADDRESS " DESC LIMIT $1"
constexpr DialectSql kSelectLabeledIssues = PT_DIALECT_SQL(PT_SELECT_LABELED_ISSUES);
constexpr std::string_view kUpsertTracking =
    "INSERT INTO tracking_issues(fingerprint, repo, number) VALUES($1, $2, $3) "
    "ON CONFLICT(fingerprint) DO UPDATE SET repo = excluded.repo, number = excluded.number";
constexpr std::string_view kSelectTracking = "SELECT number FROM tracking_issues WHERE fingerprint = $1";
constexpr std::string_view kOutboxCounts = "SELECT state, count(*) FROM outbox GROUP BY state";
constexpr std::string_view kDeliveryCounts = "SELECT state, count(*) FROM webhook_deliveries GROUP BY state";
#define PT_PENDING_TO_DRY_RUN(D)                                              \
  "UPDATE outbox SET state = 'dry_run' WHERE state = 'pending' AND repo = $1" \
  " AND issue_number IN (" PT_##D##_ID_LIST("$2") ")"
constexpr DialectSql kPendingToDryRun = PT_DIALECT_SQL(PT_PENDING_TO_DRY_RUN);

json parse_or(std::string_view text, json fallback) {
  auto j = json::parse(text, nullptr, false);
  return j.is_discarded() ? fallback : j;
}

OutboxRow read_row(const Statement& st) {
  OutboxRow r;
  r.id = st.int64(0);
  r.repo = st.text(1);
  r.issue_number = st.int64(2);
  r.kind = parse_outbox_kind(st.text_view(3)).value_or(OutboxKind::add_labels);
  r.payload = parse_or(st.text_view(4), json::object());
  r.state = parse_outbox_state(st.text_view(5)).value_or(OutboxState::failed);
  r.attempts = st.int64(6);
  r.next_attempt_at = st.int64(7);
  r.last_error = st.text(8);
  r.created_at = st.text(9);
  r.sent_at = st.text(10);
  return r;
}

Result<std::map<std::string, std::int64_t>> counts_by_state(Database& db, std::string_view sql) {
  PT_ASSIGN(auto st, Statement::prepare(db, sql));
  std::map<std::string, std::int64_t> out;
  for (;;) {
    PT_ASSIGN(const bool row, st.step());
    if (!row) return out;
    out[st.text(0)] = st.int64(1);
  }
}

}  // namespace

std::string_view to_string(OutboxKind kind) {
  switch (kind) {
    case OutboxKind::add_labels: return "add_labels";
    case OutboxKind::create_label: return "create_label";
    case OutboxKind::upsert_comment: return "upsert_comment";
    case OutboxKind::upsert_tracking_issue: return "upsert_tracking_issue";
    case OutboxKind::commit_check: return "commit_check";
  }
  return "add_labels";
}

std::string_view to_string(OutboxState state) {
  switch (state) {
    case OutboxState::pending: return "pending";
    case OutboxState::sent: return "sent";
    case OutboxState::failed: return "failed";
    case OutboxState::dry_run: return "dry_run";
  }
  return "pending";
}

std::optional<OutboxKind> parse_outbox_kind(std::string_view s) {
  for (auto k : {OutboxKind::add_labels, OutboxKind::create_label, OutboxKind::upsert_comment,
                 OutboxKind::upsert_tracking_issue, OutboxKind::commit_check})
    if (to_string(k) == s) return k;
  return std::nullopt;
}

std::optional<OutboxState> parse_outbox_state(std::string_view s) {
  for (auto k : {OutboxState::pending, OutboxState::sent, OutboxState::failed, OutboxState::dry_run})
    if (to_string(k) == s) return k;
  return std::nullopt;
}

json to_json(const OutboxRow& row) {
  return {{"id", row.id},
          {"repo", row.repo},
          {"issue_number", row.issue_number},
          {"kind", to_string(row.kind)},
          {"payload", row.payload},
          {"state", to_string(row.state)},
          {"attempts", row.attempts},
          {"next_attempt_at", row.next_attempt_at},
          {"last_error", row.last_error},
          {"created_at", row.created_at},
          {"sent_at", row.sent_at.empty() ? json() : json(row.sent_at)}};
}

json to_json(const LabeledIssue& issue) {
  return {{"repo", issue.repo},     {"number", issue.number}, {"title", issue.title},          {"axes", issue.axes},
          {"labels", issue.labels}, {"result", issue.result}, {"updated_at", issue.updated_at}};
}

Result<bool> record_delivery(Database& db, std::string_view delivery_id, std::string_view event,
                             std::string_view action) {
  PT_ASSIGN(auto st, Statement::prepare(db, kInsertDelivery));
  st.bind(1, delivery_id).bind(2, event).bind(3, action).bind(4, now_iso8601());
  PT_TRY(st.run());
  return db.changes() == 1;
}

std::string_view to_string(DeliveryClaim claim) {
  switch (claim) {
    case DeliveryClaim::fresh: return "fresh";
    case DeliveryClaim::retry: return "retry";
    case DeliveryClaim::duplicate: return "duplicate";
    case DeliveryClaim::quarantined: return "quarantined";
    case DeliveryClaim::in_progress: return "in_progress";
  }
  return "fresh";
}

json to_json(const DeliveryRow& row) {
  json out = {{"delivery_id", row.delivery_id}, {"event", row.event},
              {"action", row.action},           {"state", row.state},
              {"attempts", row.attempts},       {"last_error", row.last_error},
              {"received_at", row.received_at}, {"payload_bytes", row.payload.size()}};
  if (row.state == "done") {  // a finished delivery keeps no error, only why it was ignored, if it was
    out["reason"] = row.last_error;
    out["last_error"] = "";
  }
  return out;
}

Result<DeliveryClaim> claim_delivery(Database& db, std::string_view delivery_id, std::string_view event,
                                     std::string_view action, std::string_view payload, const DeliveryLease& lease) {
  const std::int64_t until = lease.now_ms + lease.lease_ms;
  PT_ASSIGN(auto insert, Statement::prepare(db, kClaimDelivery));
  insert.bind(1, delivery_id).bind(2, event).bind(3, action).bind(4, now_iso8601()).bind_blob(5, payload);
  insert.bind(6, until);
  PT_TRY(insert.run());
  if (db.changes() == 1) return DeliveryClaim::fresh;
  PT_ASSIGN(auto st, Statement::prepare(db, kDeliveryState));
  st.bind(1, delivery_id);
  PT_ASSIGN(const bool row, st.step());
  if (!row) return make_error(ErrorKind::internal, "delivery_vanished", "delivery row vanished");
  const std::string state = st.text(0);
  const std::int64_t attempts = st.int64(1);
  if (state == "done") return DeliveryClaim::duplicate;
  if (state == "quarantined") return DeliveryClaim::quarantined;
  if (st.int64(2) > lease.now_ms) return DeliveryClaim::in_progress;
  if (attempts >= lease.max_attempts) {
    PT_TRY(quarantine_delivery(db, delivery_id, "not finished after " + std::to_string(attempts) + " attempts"));
    return DeliveryClaim::quarantined;
  }
  PT_ASSIGN(auto retry, Statement::prepare(db, kRetryDelivery));
  retry.bind(1, delivery_id).bind_blob(2, payload).bind(3, until);
  PT_TRY(retry.run());
  return DeliveryClaim::retry;
}

Result<void> release_delivery_leases(Database& db) {
  PT_ASSIGN(auto st, Statement::prepare(db, kReleaseDeliveryLeases));
  return st.run();
}

Result<bool> finish_delivery(Database& db, std::string_view delivery_id, std::string_view reason) {
  PT_ASSIGN(auto st, Statement::prepare(db, kFinishDelivery));
  st.bind(1, delivery_id).bind(2, std::string(reason));  // a std::string: "" stays text, never NULL
  PT_TRY(st.run());
  return db.changes() == 1;
}

Result<void> note_delivery_error(Database& db, std::string_view delivery_id, std::string_view error) {
  PT_ASSIGN(auto st, Statement::prepare(db, kDeliveryError));
  st.bind(1, delivery_id).bind(2, error);
  return st.run();
}

Result<void> quarantine_delivery(Database& db, std::string_view delivery_id, std::string_view reason) {
  PT_ASSIGN(auto st, Statement::prepare(db, kQuarantineDelivery));
  st.bind(1, delivery_id).bind(2, reason);
  return st.run();
}

Result<std::vector<DeliveryRow>> list_deliveries(Database& db, std::string_view state, std::int64_t limit) {
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kSelectDeliveries)));
  st.bind(1, state).bind(2, sql_limit(limit));
  return collect<DeliveryRow>(st, [](const Statement& s) {
    return DeliveryRow{s.text(0), s.text(1), s.text(2), s.text(3), s.int64(4), s.blob(5), s.text(6), s.text(7)};
  });
}

Result<std::int64_t> count_deliveries(Database& db, std::string_view state) {
  PT_ASSIGN(auto st, Statement::prepare(db, kCountDeliveries));
  st.bind(1, state);
  return scalar(st);
}

Result<std::map<std::string, std::int64_t>> delivery_counts(Database& db) {
  return counts_by_state(db, kDeliveryCounts);
}

Result<std::int64_t> enqueue(Database& db, const NewAction& action, OutboxState initial, std::int64_t now_ms) {
  PT_ASSIGN(auto st, Statement::prepare(db, kInsertAction));
  st.bind(1, action.repo)
      .bind(2, action.issue_number)
      .bind(3, to_string(action.kind))
      .bind(4, dump_json(action.payload));
  st.bind(5, to_string(initial)).bind(6, now_ms).bind(7, now_iso8601());
  return scalar(st);
}

Result<void> mark_sent(Database& db, std::int64_t id, std::int64_t attempts) {
  PT_ASSIGN(auto st, Statement::prepare(db, kMarkSent));
  st.bind(1, id).bind(2, attempts).bind(3, now_iso8601());
  return st.run();
}

Result<void> schedule_retry(Database& db, std::int64_t id, std::int64_t attempts, std::int64_t next_attempt_at_ms,
                            std::string_view error) {
  PT_ASSIGN(auto st, Statement::prepare(db, kScheduleRetry));
  st.bind(1, id).bind(2, attempts).bind(3, next_attempt_at_ms).bind(4, error);
  return st.run();
}

Result<void> mark_failed(Database& db, std::int64_t id, std::int64_t attempts, std::string_view error) {
  PT_ASSIGN(auto st, Statement::prepare(db, kMarkFailed));
  st.bind(1, id).bind(2, attempts).bind(3, error);
  return st.run();
}

Result<void> record_bot_labels(Database& db, std::string_view repo, std::int64_t number,
                               const std::vector<std::string>& labels) {
  PT_ASSIGN(auto st, Statement::prepare(db, kUpsertBotLabel));
  for (const auto& label : labels) {
    st.reset();
    st.bind(1, repo).bind(2, number).bind(3, label);
    PT_TRY(st.run());
  }
  return {};
}

Result<bool> record_human_removal(Database& db, std::string_view repo, std::int64_t number, std::string_view label) {
  PT_ASSIGN(auto st, Statement::prepare(db, kHumanRemoval));
  st.bind(1, repo).bind(2, number).bind(3, label);
  PT_TRY(st.run());
  if (db.changes() == 1) return true;
  PT_ASSIGN(auto forget, Statement::prepare(db, kForgetHumanLabel));
  forget.bind(1, repo).bind(2, number).bind(3, label);
  PT_TRY(forget.run());
  return false;
}

Result<void> record_human_label(Database& db, std::string_view repo, std::int64_t number, std::string_view label) {
  PT_ASSIGN(auto st, Statement::prepare(db, kHumanLabel));
  st.bind(1, repo).bind(2, number).bind(3, label);
  return st.run();
}

Result<void> set_comment_id(Database& db, std::string_view repo, std::int64_t number, std::int64_t comment_id) {
  PT_ASSIGN(auto st, Statement::prepare(db, kUpsertComment));
  st.bind(1, repo).bind(2, number).bind(3, comment_id);
  return st.run();
}

Result<void> save_labeled_issue(Database& db, const LabeledIssue& issue) {
  PT_ASSIGN(auto st, Statement::prepare(db, kUpsertLabeledIssue));
  st.bind(1, issue.repo).bind(2, issue.number).bind(3, issue.title).bind(4, dump_json(issue.axes));
  st.bind(5, dump_json(issue.labels)).bind(6, dump_json(issue.result));
  st.bind(7, issue.updated_at.empty() ? now_iso8601() : issue.updated_at);
  PT_TRY(st.run());
  // Here rather than in each caller: every labeled issue saved (webhook, demo, a later path) keeps its case links.
  return replace_issue_cases(db, issue.repo, issue.number, issue_cases_of(issue.result, issue.axes));
}

Result<void> set_tracking_issue(Database& db, std::string_view fingerprint, std::string_view repo,
                                std::int64_t number) {
  PT_ASSIGN(auto st, Statement::prepare(db, kUpsertTracking));
  st.bind(1, fingerprint).bind(2, repo).bind(3, number);
  return st.run();
}

Result<std::optional<OutboxRow>> next_due(Database& db, std::int64_t now_ms) {
  PT_ASSIGN(auto st,
            Statement::prepare(db, std::string(kOutboxColumns) +
                                       "WHERE state = 'pending' AND next_attempt_at <= $1 ORDER BY id LIMIT 1"));
  st.bind(1, now_ms);
  return first(st, read_row);
}

Result<std::optional<OutboxRow>> claim_due(Database& db, std::int64_t now_ms, std::int64_t lease_until_ms) {
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kClaimDue, kClaimDuePostgres)));
  st.bind(1, now_ms).bind(2, lease_until_ms);
  auto row = first(st, read_row);
  st.rewind();  // the claim is written (SQLite runs a RETURNING statement's change at its first step)
  return row;
}

Result<void> release_claim(Database& db, std::int64_t id, std::int64_t next_attempt_at_ms) {
  PT_ASSIGN(auto st, Statement::prepare(db, kReleaseClaim));
  st.bind(1, id).bind(2, next_attempt_at_ms);
  return st.run();
}

Result<std::optional<OutboxRow>> outbox_row(Database& db, std::int64_t id) {
  PT_ASSIGN(auto st, Statement::prepare(db, std::string(kOutboxColumns) + "WHERE id = $1"));
  st.bind(1, id);
  return first(st, read_row);
}

Result<std::vector<OutboxRow>> list_outbox(Database& db, std::optional<OutboxState> state, std::int64_t limit) {
  PT_ASSIGN(auto st, Statement::prepare(
                         db, std::string(kOutboxColumns) + "WHERE ($1 = '' OR state = $1) ORDER BY id DESC LIMIT $2"));
  st.bind(1, std::string(state ? to_string(*state) : "")).bind(2, sql_limit(limit));
  return collect<OutboxRow>(st, read_row);
}

Result<std::int64_t> count_outbox(Database& db, OutboxState state) {
  PT_ASSIGN(auto st, Statement::prepare(db, "SELECT COUNT(*) FROM outbox WHERE state = $1"));
  st.bind(1, to_string(state));
  return scalar(st);
}

Result<std::map<std::string, std::int64_t>> outbox_counts(Database& db) { return counts_by_state(db, kOutboxCounts); }

Result<std::int64_t> outbox_to_dry_run(Database& db, std::string_view repo, const std::vector<std::int64_t>& numbers) {
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kPendingToDryRun)));
  st.bind(1, repo).bind(2, id_list(numbers));
  PT_TRY(st.run());
  return static_cast<std::int64_t>(db.changes());
}

Result<std::set<std::string>> suppressed_labels(Database& db, std::string_view repo, std::int64_t number) {
  PT_ASSIGN(auto st, Statement::prepare(db, kSuppressed));
  st.bind(1, repo).bind(2, number);
  std::set<std::string> out;
  while (true) {
    PT_ASSIGN(const bool row, st.step());
    if (!row) break;
    out.insert(st.text(0));
  }
  return out;
}

Result<std::optional<std::int64_t>> comment_id(Database& db, std::string_view repo, std::int64_t number) {
  PT_ASSIGN(auto st, Statement::prepare(db, kSelectComment));
  st.bind(1, repo).bind(2, number);
  return first(st, [](const Statement& s) { return s.int64(0); });
}

Result<std::vector<LabeledIssue>> labeled_issues(Database& db, std::int64_t limit) {
  PT_ASSIGN(auto st, Statement::prepare(db, dialect_sql(db, kSelectLabeledIssues)));
  st.bind(1, sql_limit(limit));
  return collect<LabeledIssue>(st, [](const Statement& s) {
    LabeledIssue i;
    i.repo = s.text(0);
    i.number = s.int64(1);
    i.title = s.text(2);
    i.axes = parse_or(s.text_view(3), json::array());
    i.labels = parse_or(s.text_view(4), json::array());
    i.result = parse_or(s.text_view(5), json::object());
    i.updated_at = s.text(6);
    return i;
  });
}

Result<std::optional<std::int64_t>> tracking_issue(Database& db, std::string_view fingerprint) {
  PT_ASSIGN(auto st, Statement::prepare(db, kSelectTracking));
  st.bind(1, fingerprint);
  return first(st, [](const Statement& s) { return s.int64(0); });
}

}  // namespace perftriage::schema
