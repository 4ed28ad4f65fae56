#pragma once
// Sends the outbox to GitHub: one thread, one mutation at a time at least min_interval apart, exponential backoff,
// retry-after and x-ratelimit-* honoured, a visible `failed` after max_attempts. Rows are marked sent only after a
// 2xx, so an action interrupted by a crash is sent again after restart (the comment upsert finds its own comment by
// the hidden marker first, so that re-send edits instead of posting a second one).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "schema/bot_store.hpp"
#include "server/app/app_context.hpp"
#include "server/bot/github_client.hpp"

namespace perftriage::server {

struct RetryPolicy {
  std::int64_t max_attempts = 8;
  std::int64_t base_ms = 1000;            // first retry after this, doubling
  std::int64_t cap_ms = 15 * 60 * 1000;   // longest backoff
  std::int64_t secondary_min_ms = 60000;  // a secondary rate limit without retry-after waits at least this
};

struct Outcome {
  enum class Kind { sent, retry, failed };
  Kind kind = Kind::sent;
  std::int64_t delay_ms = 0;  // retry: wait this long
  bool pause_all = false;     // a rate limit: no request at all until then, not just this action
  std::string error;
};

// base * 2^(attempts-1), capped; attempts >= 1 counts the tries made so far.
std::int64_t backoff_ms(std::int64_t attempts, const RetryPolicy& policy);
// What to do after one answer from GitHub; `attempts` counts this try; `now_ms` is unix time (x-ratelimit-reset is).
Outcome decide(const GitHubResponse& response, std::int64_t attempts, std::int64_t now_ms, const RetryPolicy& policy);
// 422 with an `already_exists` error: creating a label that is there is a success.
bool is_already_exists(const GitHubResponse& response);

std::int64_t unix_ms();

struct WorkerOptions {
  GitHubClientConfig client;
  RetryPolicy retry;
  std::int64_t min_interval_ms = 1000;
  std::int64_t poll_ms = 100;  // how often an idle worker looks for new rows
  // How long a claimed action is this worker's alone (schema::claim_due): longer than one send with its retries
  // inside the GitHub client, so that another replica never sends it twice while this one is still at it; a
  // worker killed mid-send leaves its action to another after this long.
  std::int64_t claim_lease_ms = 5 * 60 * 1000;
};

class OutboxWorker {
 public:
  OutboxWorker(AppContext& app, WorkerOptions options);
  ~OutboxWorker();
  OutboxWorker(const OutboxWorker&) = delete;
  OutboxWorker& operator=(const OutboxWorker&) = delete;

  void start();
  void stop();  // aborts a request in flight; the action stays pending and is sent after restart

  // One pass for tests: sends the oldest due action, if any. Returns false when nothing was due.
  bool run_once();

 private:
  void loop();
  bool sleep_for(std::int64_t ms);  // false when stopping
  GitHubResponse mutate(const std::function<GitHubResponse()>& call);
  Outcome execute(const schema::OutboxRow& row, schema::Database& db);
  // One per action kind; execute() has checked the repository name.
  Outcome add_labels(const schema::OutboxRow& row, schema::Database& db);
  Outcome upsert_comment(const schema::OutboxRow& row, schema::Database& db);
  Outcome upsert_marked_comment(const schema::OutboxRow& row);
  // Pages through the issue's comments for the first whose body starts with `marker` (into `id`); the failed listing,
  // if one failed.
  std::optional<GitHubResponse> find_comment(const schema::OutboxRow& row, std::string_view marker,
                                             std::optional<std::int64_t>& id);
  Outcome upsert_tracking_issue(const schema::OutboxRow& row, schema::Database& db);
  // An upload's verdict on its commit (server/bot/upload_check.hpp): a check run in App mode, else (or when the App
  // may not write checks) a commit status.
  Outcome commit_check(const schema::OutboxRow& row);
  // Pages through the repository's issues updated since the row was queued for one the bot opened with `marker` in
  // its body (into `number`); the failed listing, if one failed.
  std::optional<GitHubResponse> find_tracking_issue(const schema::OutboxRow& row, std::string_view marker,
                                                    std::optional<std::int64_t>& number);
  // GitHub's answer to an attempt of `row`, as an outcome (sent, retry after a backoff, failed).
  Outcome answer(const schema::OutboxRow& row, const GitHubResponse& response) const;

  AppContext& app_;
  WorkerOptions options_;
  GitHubClient client_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
  std::int64_t last_mutation_ms_ = 0;
  std::int64_t paused_until_ms_ = 0;
};

}  // namespace perftriage::server
