#pragma once
// Retention (settings [retention], 0 days = keep forever): what is kept and for how long.
//   raw_files_days           the raw bytes of uploaded files (superseded ones too) uploaded longer ago are dropped; the
//                            parsed rows stay, the file is marked raw-dropped (its JSON says "raw_dropped": true)
//   nightly_runs_days        runs created longer ago are deleted whole (schema/run_delete.hpp), unless a tag starts
//                            with one of keep_tags ("release" keeps "release-2.12"), and never a platform's latest run
//                            nor a run whose created_at is not an ISO-8601 date (it cannot be aged)
//   webhook_deliveries_days  finished ('done') deliveries; never 'processing' or 'quarantined' ones
//   sent_outbox_days         outbox rows sent or dry_run; never pending or failed ones
// Everything is done in bounded batches (one short write transaction each; a run is one batch), pausing between
// them so uploads get the write lock, and stopping promptly when asked. Each deleted run gets an audit_log row
// (actor "retention", action "retention", target the run key); a pass that changed anything adds one summary row
// (target "pass").
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/retention_store.hpp"
#include "schema/database.hpp"
#include "server/app/settings.hpp"

namespace perftriage::server {

// --- pure selection ---

// now - days as ISO-8601 UTC ("YYYY-MM-DDTHH:MM:SSZ"); "" when days <= 0 (keep forever).
std::string retention_cutoff(std::chrono::system_clock::time_point now, int days);
// Whether one of the run's tags starts with one of keep_tags (an empty keep tag keeps nothing).
bool kept_by_tag(const std::vector<std::string>& tags, const std::vector<std::string>& keep_tags);
// The runs the nightly rule deletes: created before `cutoff` (compared as ISO-8601 text, created_at must start with a
// valid YYYY-MM-DD date), not kept by a tag, neither the newest run of its platform nor its newest with performance
// results (by created_at, then id).
// Oldest first. Nothing when cutoff is "".
std::vector<schema::RunAge> select_expired_runs(const std::vector<schema::RunAge>& runs, const std::string& cutoff,
                                                const std::vector<std::string>& keep_tags);

// --- one pass ---

struct RetentionReport {
  bool dry_run = false;
  std::int64_t raw_files = 0;     // files whose raw bytes were dropped
  std::int64_t raw_bytes = 0;     // compressed bytes freed (reused by new data; VACUUM shrinks the file)
  std::vector<std::string> runs;  // keys of the deleted runs
  std::int64_t results = 0;       // rows deleted with those runs
  std::int64_t deliveries = 0;
  std::int64_t outbox = 0;
  std::int64_t batches = 0;  // write transactions used
  bool stopped = false;      // asked to stop before the pass was done
  [[nodiscard]] bool changed() const { return raw_files || !runs.empty() || deliveries || outbox; }
};
nlohmann::json to_json(const RetentionReport& r);

struct RetentionOptions {
  bool dry_run = false;                 // count what would go, change nothing
  std::int64_t batch_rows = 500;        // deliveries / outbox rows per transaction
  std::int64_t batch_files = 100;       // files whose raw bytes are dropped per transaction
  std::chrono::milliseconds pause{20};  // between batches, so writers get the lock
  std::function<bool()> stopping;       // checked between batches
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
};

Result<RetentionReport> run_retention(schema::Database& db, const RetentionSettings& settings,
                                      const RetentionOptions& options);

// --- the background task of `perftriage serve` ---

class AppContext;

class RetentionTask {
 public:
  // `log` receives one line per pass that did something (and per error).
  RetentionTask(AppContext& app, RetentionSettings settings, std::function<void(const std::string&)> log);
  ~RetentionTask();
  RetentionTask(const RetentionTask&) = delete;
  RetentionTask& operator=(const RetentionTask&) = delete;

  void start();  // first pass after one interval (the start-up is busy enough), then every interval
  void stop();   // wakes the thread; a pass in progress stops after its current batch

 private:
  void loop();
  AppContext& app_;
  RetentionSettings settings_;
  std::function<void(const std::string&)> log_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

// Whether any rule is on (some *_days > 0): serve starts the task only then.
bool retention_enabled(const RetentionSettings& settings);

}  // namespace perftriage::server
