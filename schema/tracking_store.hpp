#pragma once
// The tracking task's tables (migration 013): the queue of runs and platforms whose tracking issues may need an
// update (filled by triggers), and what each tracking issue last said. Writes run inside the caller's transaction.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"
#include "schema/database.hpp"

namespace perftriage::schema {

struct TrackingDue {
  std::string scope;  // "run:<id>" or "platform:<spelling>"
  std::int64_t changed_ms = 0;
};

// Entries changed and not handled whose last change is at or before quiet_before_ms, oldest change first.
Result<std::vector<TrackingDue>> due_tracking(Database& db, std::int64_t quiet_before_ms, std::int64_t limit = 100);
// Marks the change handled unless a newer one arrived meanwhile (that one stays due).
Result<void> mark_tracking_handled(Database& db, const TrackingDue& due);

struct TrackingState {
  std::string fingerprint, repo, platform, release, kind;
  std::optional<std::int64_t> run_id;
  bool is_open = true;
  std::string published = "{}";  // JSON
  std::string body_sha256;
  std::string updated_at;
};

Result<std::optional<TrackingState>> tracking_state(Database& db, const std::string& fingerprint);
Result<std::vector<TrackingState>> tracking_states(Database& db, const std::string& platform = {});  // "" = all
Result<void> save_tracking_state(Database& db, const TrackingState& state);
struct Notification {
  std::int64_t id = 0;
  std::string url, event, body, state;
  std::int64_t attempts = 0;
};
Result<void> enqueue_notification(Database& db, const std::string& url, const std::string& event,
                                  const std::string& body);
Result<std::vector<Notification>> due_notifications(Database& db, std::int64_t now_ms, std::int64_t limit = 20);
// After one attempt: sent, or retried at next_attempt_ms, or failed (next_attempt_ms < 0).
Result<void> record_notification_attempt(Database& db, std::int64_t id, bool sent, std::int64_t next_attempt_ms,
                                         const std::string& error);
Result<std::vector<Notification>> list_notifications(Database& db, std::int64_t limit = 200);  // newest first

// The key of run `id`, nullopt when it is gone.
Result<std::optional<std::string>> run_key_by_id(Database& db, std::int64_t id);

}  // namespace perftriage::schema
