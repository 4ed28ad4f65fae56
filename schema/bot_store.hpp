#pragma once
// The GitHub bot's tables (migrations 003 and 005): webhook deliveries, the outbox of GitHub actions, labels the bot
// applied and humans removed, the one bot comment per issue, labeled issues and tracking issues. Writes are called
// inside the caller's Transaction; reads are single statements.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

enum class OutboxKind { add_labels, create_label, upsert_comment, upsert_tracking_issue, commit_check };
enum class OutboxState { pending, sent, failed, dry_run };

std::string_view to_string(OutboxKind kind);
std::string_view to_string(OutboxState state);
std::optional<OutboxKind> parse_outbox_kind(std::string_view s);
std::optional<OutboxState> parse_outbox_state(std::string_view s);

struct NewAction {
  std::string repo;
  std::int64_t issue_number = 0;
  OutboxKind kind = OutboxKind::add_labels;
  nlohmann::json payload = nlohmann::json::object();
};

struct OutboxRow {
  std::int64_t id = 0;
  std::string repo;
  std::int64_t issue_number = 0;
  OutboxKind kind = OutboxKind::add_labels;
  nlohmann::json payload;
  OutboxState state = OutboxState::pending;
  std::int64_t attempts = 0;
  std::int64_t next_attempt_at = 0;  // unix milliseconds
  std::string last_error, created_at, sent_at;
};

// What claim_delivery found for a delivery id.
enum class DeliveryClaim {
  fresh,        // first time: recorded as 'processing'; process it
  retry,        // recorded before and never finished (the process died, or it failed): process it once more
  duplicate,    // already done: answer without doing anything
  quarantined,  // given up on: answer without doing anything
  in_progress,  // another request (another replica) holds its lease and is processing it: answer, do nothing
};
std::string_view to_string(DeliveryClaim claim);

struct DeliveryRow {
  std::string delivery_id, event, action, state;
  std::int64_t attempts = 0;
  std::string payload;  // only while not done
  std::string last_error, received_at;
};
nlohmann::json to_json(const DeliveryRow& row);  // without the payload

struct LabeledIssue {
  std::string repo;
  std::int64_t number = 0;
  std::string title;
  nlohmann::json axes = nlohmann::json::array();
  nlohmann::json labels = nlohmann::json::array();
  nlohmann::json result = nlohmann::json::object();
  std::string updated_at;
};

nlohmann::json to_json(const OutboxRow& row);
nlohmann::json to_json(const LabeledIssue& issue);

// --- writes (inside the caller's Transaction) ---
// One atomic INSERT ... ON CONFLICT DO NOTHING: false when this delivery was seen before.
Result<bool> record_delivery(Database& db, std::string_view delivery_id, std::string_view event,
                             std::string_view action);
// How claim_delivery leases a delivery to its caller: until now_ms + lease_ms (unix milliseconds).
struct DeliveryLease {
  std::int64_t max_attempts = 2;
  std::int64_t now_ms = 0;
  std::int64_t lease_ms = 0;
};
// Records a delivery as 'processing' with its payload, leased to the caller (commit this before processing it). A
// delivery seen before and not finished is `in_progress` while another caller's lease lasts; after that (its
// process died, or its attempt failed and cleared the lease) it counts one more attempt, and past `max_attempts` it
// is quarantined instead.
Result<DeliveryClaim> claim_delivery(Database& db, std::string_view delivery_id, std::string_view event,
                                     std::string_view action, std::string_view payload, const DeliveryLease& lease);
// Clears every processing delivery's lease: a server that is the only process working the database (SQLite) takes
// over what its killed predecessor left.
Result<void> release_delivery_leases(Database& db);
// 'processing' -> 'done', payload dropped; `reason` says why nothing was done ("" when it was handled). False when it
// was not 'processing' (another request finished it).
Result<bool> finish_delivery(Database& db, std::string_view delivery_id, std::string_view reason = {});
// Writes the failed attempt's error beside the delivery and clears its lease (the next redelivery retries).
Result<void> note_delivery_error(Database& db, std::string_view delivery_id, std::string_view error);
Result<void> quarantine_delivery(Database& db, std::string_view delivery_id, std::string_view reason);
Result<std::int64_t> enqueue(Database& db, const NewAction& action, OutboxState initial, std::int64_t now_ms);
Result<void> mark_sent(Database& db, std::int64_t id, std::int64_t attempts);
Result<void> schedule_retry(Database& db, std::int64_t id, std::int64_t attempts, std::int64_t next_attempt_at_ms,
                            std::string_view error);
Result<void> mark_failed(Database& db, std::int64_t id, std::int64_t attempts, std::string_view error);
// Pending actions for these issues of `repo` become dry_run: never sent, by this process or a later one. Returns how
// many changed.
Result<std::int64_t> outbox_to_dry_run(Database& db, std::string_view repo, const std::vector<std::int64_t>& numbers);
Result<void> record_bot_labels(Database& db, std::string_view repo, std::int64_t number,
                               const std::vector<std::string>& labels);
// A human removed `label`: remembered (never applied again) when the bot had applied it. True when remembered. A label
// a human had added is forgotten (it corrected nothing of the labeler's: label_feedback_store.hpp).
Result<bool> record_human_removal(Database& db, std::string_view repo, std::int64_t number, std::string_view label);
// A human (re)added `label`: it is on the issue by their choice, so a later removal is theirs again.
Result<void> record_human_label(Database& db, std::string_view repo, std::int64_t number, std::string_view label);
Result<void> set_comment_id(Database& db, std::string_view repo, std::int64_t number, std::int64_t comment_id);
Result<void> save_labeled_issue(Database& db, const LabeledIssue& issue);
Result<void> set_tracking_issue(Database& db, std::string_view fingerprint, std::string_view repo, std::int64_t number);

// --- reads (single statements) ---
// The oldest pending action due at now_ms.
Result<std::optional<OutboxRow>> next_due(Database& db, std::int64_t now_ms);
// Takes the oldest pending action due at now_ms for one sender: in the same statement its next attempt moves to
// lease_until_ms, so that no other sender (another worker, another replica on the same PostgreSQL) takes it
// before then. On PostgreSQL the pick skips rows another sender holds (FOR UPDATE SKIP LOCKED); SQLite has one
// writer at a time. The sender then marks it sent, failed or due again (schedule_retry), or gives it back
// (release_claim). A sender that dies holding it leaves it to be taken again once the lease ends.
Result<std::optional<OutboxRow>> claim_due(Database& db, std::int64_t now_ms, std::int64_t lease_until_ms);
// Puts a claimed action back, due at next_attempt_at_ms (the time it was claimed: it was due then), attempts untouched.
Result<void> release_claim(Database& db, std::int64_t id, std::int64_t next_attempt_at_ms);
Result<std::optional<OutboxRow>> outbox_row(Database& db, std::int64_t id);
// Newest first; nullopt state = every state.
Result<std::vector<OutboxRow>> list_outbox(Database& db, std::optional<OutboxState> state, std::int64_t limit = 500);
Result<std::int64_t> count_outbox(Database& db, OutboxState state);
Result<std::map<std::string, std::int64_t>> outbox_counts(Database& db);  // state -> rows, states with none absent
// Labels the bot applied and a human removed on this issue.
Result<std::set<std::string>> suppressed_labels(Database& db, std::string_view repo, std::int64_t number);
Result<std::optional<std::int64_t>> comment_id(Database& db, std::string_view repo, std::int64_t number);
// Most recently updated first.
Result<std::vector<LabeledIssue>> labeled_issues(Database& db, std::int64_t limit = 500);
Result<std::optional<std::int64_t>> tracking_issue(Database& db, std::string_view fingerprint);
// Deliveries in `state` ("processing", "done", "quarantined"; empty = all), newest first; payloads included only
// for unfinished ones.
Result<std::vector<DeliveryRow>> list_deliveries(Database& db, std::string_view state, std::int64_t limit = 500);
Result<std::int64_t> count_deliveries(Database& db, std::string_view state);
Result<std::map<std::string, std::int64_t>> delivery_counts(Database& db);  // state -> rows, states with none absent

}  // namespace perftriage::schema
