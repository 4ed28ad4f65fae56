#pragma once
// Tracking issues kept by the service ([[tracking]] policies, settings.hpp TrackingPolicy): when a run that a policy
// matches has been quiet for settle_seconds, or a case's triage changed, the issue of (repo, platform, release,
// kind) is rebuilt from the database and what changed is queued in the outbox, in one transaction with the queue
// entry's handled mark (schema/tracking_store.hpp): a restart neither repeats nor loses an update.
//
// The slow issue lists every case that was slower than eager in a run of the release: the open ones in the seed
// issue's table (with sources), the fixed ones struck through with the run that fixed them, `expected` / `wontfix`
// ones apart (they never keep it open); "Likely root causes" groups the open cases by classifier finding. The labels
// come from the labeler on the seed-shaped part (title, summary, table), applied with its reasons as the one bot
// comment. A later run's new, fixed and slow-again cases are named in one comment; when no case keeps it open it is
// closed with a comment, and a case slow again reopens it. The regressions issue is the release-regression report of
// the newest run against the newest run of the platform's previous release; it closes when none is left.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "common/result.hpp"
#include "model/records.hpp"
#include "server/app/app_context.hpp"
#include "server/app/settings.hpp"

namespace perftriage::server {

// The release `policy` tracks `run` under, or nullopt when the policy does not match it: the platform must be one
// of the policy's; "tag:release-*" with the tag "release-2.12" gives "2.12" (what the first '*' matched, else the
// tag); "key:GLOB" gives the run's torch release ("2.12.0+xpu" -> "2.12"), else its key.
std::optional<std::string> tracked_release(const TrackingPolicy& policy, const model::RunRecord& run);

// "intel/torch-xpu-ops|BMG|2.12|slow": the fingerprint of tracking_issues and tracking_state.
std::string tracking_fingerprint(const TrackingPolicy& policy, const std::string& platform, const std::string& release,
                                 std::string_view kind);

// "<!-- perftriage:tracking FINGERPRINT -->": the line a tracking issue's body ends with, by which the outbox finds
// an issue it opened but never recorded.
std::string tracking_marker(std::string_view fingerprint);

struct TrackingPass {
  std::int64_t entries = 0;    // queue entries handled
  std::int64_t evaluated = 0;  // tracking issues rebuilt
  std::int64_t actions = 0;    // outbox actions queued
};

// Handles every due queue entry at now_ms (unix milliseconds).
Result<TrackingPass> run_tracking_pass(AppContext& app, std::int64_t now_ms);

// The background task of `perftriage serve` when policies are configured: a pass every poll interval.
class TrackingTask {
 public:
  TrackingTask(AppContext& app, std::function<void(const std::string&)> log, std::int64_t poll_ms = 1000);
  ~TrackingTask();
  TrackingTask(const TrackingTask&) = delete;
  TrackingTask& operator=(const TrackingTask&) = delete;
  void start();
  void stop();

 private:
  void run_once();  // one pass and the due notifications, when this replica holds the task lock
  AppContext& app_;
  std::function<void(const std::string&)> log_;
  std::int64_t poll_ms_;
  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace perftriage::server
