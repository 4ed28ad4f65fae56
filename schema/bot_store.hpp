#pragma once
// The GitHub bot's tables (migration 004): webhook deliveries, the outbox of GitHub actions, labels the bot applied
// and humans removed, the one bot comment per issue, labeled issues and tracking issues.
// Writes are called inside the caller's Transaction; reads are single statements.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/sqlite.hpp"

namespace perftriage::schema {

enum class OutboxKind { add_labels, create_label, upsert_comment, upsert_tracking_issue };
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

class BotStore {
 public:
  explicit BotStore(Database& db) : db_(db) {}

  // --- writes (inside the caller's Transaction) ---
  // One atomic INSERT ... ON CONFLICT DO NOTHING: false when this delivery was seen before.
  Result<bool> record_delivery(std::string_view delivery_id, std::string_view event, std::string_view action);
  // Records a delivery as 'processing' with its payload (commit this before processing it). A delivery seen before
  // and not finished counts one more attempt; past `max_attempts` it is quarantined instead.
  Result<DeliveryClaim> claim_delivery(std::string_view delivery_id, std::string_view event, std::string_view action,
                                       std::string_view payload, std::int64_t max_attempts);
  // 'processing' -> 'done', payload dropped. False when it was not 'processing' (another request finished it).
  Result<bool> finish_delivery(std::string_view delivery_id);
  Result<void> note_delivery_error(std::string_view delivery_id, std::string_view error);
  Result<void> quarantine_delivery(std::string_view delivery_id, std::string_view reason);
  Result<std::int64_t> enqueue(const NewAction& action, OutboxState initial, std::int64_t now_ms);
  Result<void> mark_sent(std::int64_t id, std::int64_t attempts);
  Result<void> schedule_retry(std::int64_t id, std::int64_t attempts, std::int64_t next_attempt_at_ms,
                              std::string_view error);
  Result<void> mark_failed(std::int64_t id, std::int64_t attempts, std::string_view error);
  Result<void> record_bot_labels(std::string_view repo, std::int64_t number, const std::vector<std::string>& labels);
  // A human removed `label`: remembered (never applied again) when the bot had applied it. True when remembered.
  Result<bool> record_human_removal(std::string_view repo, std::int64_t number, std::string_view label);
  // A human (re)added `label`: it is on the issue by their choice, so a later removal is theirs again.
  Result<void> record_human_label(std::string_view repo, std::int64_t number, std::string_view label);
  Result<void> set_comment_id(std::string_view repo, std::int64_t number, std::int64_t comment_id);
  Result<void> save_labeled_issue(const LabeledIssue& issue);
  Result<void> set_tracking_issue(std::string_view fingerprint, std::string_view repo, std::int64_t number);

  // --- reads ---
  // The oldest pending action due at now_ms.
  Result<std::optional<OutboxRow>> next_due(std::int64_t now_ms);
  Result<std::optional<OutboxRow>> outbox_row(std::int64_t id);
  // Newest first; nullopt state = every state.
  Result<std::vector<OutboxRow>> list_outbox(std::optional<OutboxState> state, std::int64_t limit = 500);
  Result<std::int64_t> count_outbox(OutboxState state);
  // Labels the bot applied and a human removed on this issue.
  Result<std::set<std::string>> suppressed_labels(std::string_view repo, std::int64_t number);
  Result<std::optional<std::int64_t>> comment_id(std::string_view repo, std::int64_t number);
  Result<std::vector<LabeledIssue>> labeled_issues(std::int64_t limit = 500);  // most recently updated first
  Result<std::optional<std::int64_t>> tracking_issue(std::string_view fingerprint);
  // Deliveries in `state` ("processing", "done", "quarantined"; empty = all), newest first; payloads included only
  // for unfinished ones.
  Result<std::vector<DeliveryRow>> deliveries(std::string_view state, std::int64_t limit = 500);
  Result<std::int64_t> count_deliveries(std::string_view state);

 private:
  Database& db_;
};

}  // namespace perftriage::schema
