#include "server/app/retention.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>
#include <tuple>

#include "schema/audit_store.hpp"
#include "schema/run_delete.hpp"
#include "schema/store.hpp"
#include "server/app/app_context.hpp"
#include "schema/task_lock.hpp"

namespace perftriage::server {
namespace {

// "YYYY-MM-DD" with a plausible month and day: only such created_at values are aged.
bool starts_with_date(const std::string& s) {
  if (s.size() < 10 || s[4] != '-' || s[7] != '-') return false;
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (!std::isdigit(static_cast<unsigned char>(s[static_cast<std::size_t>(i)]))) return false;
  }
  const int month = std::stoi(s.substr(5, 2));
  const int day = std::stoi(s.substr(8, 2));
  return month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

}  // namespace

std::string retention_cutoff(std::chrono::system_clock::time_point now, int days) {
  if (days <= 0) return {};
  return schema::iso8601_utc(std::chrono::system_clock::to_time_t(now - std::chrono::hours(24) * days));
}

bool kept_by_tag(const std::vector<std::string>& tags, const std::vector<std::string>& keep_tags) {
  for (const auto& tag : tags) {
    for (const auto& keep : keep_tags) {
      if (!keep.empty() && tag.compare(0, keep.size(), keep) == 0) return true;
    }
  }
  return false;
}

std::vector<schema::RunAge> select_expired_runs(const std::vector<schema::RunAge>& runs, const std::string& cutoff,
                                                const std::vector<std::string>& keep_tags) {
  std::vector<schema::RunAge> out;
  if (cutoff.empty()) return out;
  // platform -> its newest run and its newest with performance results (created_at, then id): neither goes, so that a
  // run of reference files alone never leaves the run `slow` and the overview read (schema::RunsWith) to expire.
  std::map<std::string, const schema::RunAge*> latest, measured;
  const auto keep_newer = [](const schema::RunAge*& l, const schema::RunAge& r) {
    if (!l || std::tie(r.created_at, r.id) > std::tie(l->created_at, l->id)) l = &r;
  };
  for (const auto& r : runs) {
    keep_newer(latest[r.platform], r);
    if (r.has_performance) keep_newer(measured[r.platform], r);
  }
  for (const auto& r : runs) {
    if (latest[r.platform] == &r || measured[r.platform] == &r) continue;
    if (!starts_with_date(r.created_at) || !(r.created_at < cutoff)) continue;
    if (kept_by_tag(r.tags, keep_tags)) continue;
    out.push_back(r);
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return std::tie(a.created_at, a.id) < std::tie(b.created_at, b.id); });
  return out;
}

nlohmann::json to_json(const RetentionReport& r) {
  return {{"dry_run", r.dry_run}, {"raw_files", r.raw_files}, {"raw_bytes", r.raw_bytes},
          {"runs", r.runs},       {"results", r.results},     {"webhook_deliveries", r.deliveries},
          {"outbox", r.outbox},   {"batches", r.batches},     {"stopped", r.stopped}};
}

bool retention_enabled(const RetentionSettings& s) {
  return s.raw_files_days > 0 || s.nightly_runs_days > 0 || s.webhook_deliveries_days > 0 || s.sent_outbox_days > 0;
}

namespace {

// One pass: each rule in its own step, the report filled as they go. Writes come in batches, each its own
// transaction, with a pause between them so that an upload waiting for the lock gets in.
class RetentionPass {
 public:
  RetentionPass(schema::Database& db, const RetentionSettings& settings, const RetentionOptions& options)
      : db_(db), settings_(settings), options_(options) {
    report_.dry_run = options.dry_run;
  }

  Result<RetentionReport> run() {
    PT_TRY(raw_files());
    PT_TRY(nightly_runs());
    PT_TRY(rows(settings_.webhook_deliveries_days, schema::delete_done_deliveries, schema::count_done_deliveries,
                report_.deliveries));
    PT_TRY(rows(settings_.sent_outbox_days, schema::delete_sent_outbox, schema::count_sent_outbox, report_.outbox));
    PT_TRY(audit());
    return report_;
  }

 private:
  using Purge = Result<std::int64_t> (*)(schema::Database&, const std::string&, std::int64_t);
  using Count = Result<std::int64_t> (*)(schema::Database&, const std::string&);

  bool stop() {
    if (options_.stopping && options_.stopping()) report_.stopped = true;
    return report_.stopped;
  }
  void pause() {  // between write transactions
    if (!first_batch_ && options_.pause.count() > 0) std::this_thread::sleep_for(options_.pause);
    first_batch_ = false;
    ++report_.batches;
  }

  Result<void> raw_files() {
    const auto cutoff = retention_cutoff(options_.now, settings_.raw_files_days);
    if (cutoff.empty()) return {};
    if (options_.dry_run) {
      PT_ASSIGN(const auto n, schema::count_raw_files(db_, cutoff));
      report_.raw_files = n.files;
      report_.raw_bytes = n.bytes;
      return {};
    }
    while (!stop()) {
      pause();
      PT_ASSIGN(const auto n, schema::drop_raw_files(db_, cutoff, options_.batch_files));
      report_.raw_files += n.files;
      report_.raw_bytes += n.bytes;
      if (n.files < options_.batch_files) break;
    }
    return {};
  }

  Result<void> nightly_runs() {
    const auto cutoff = retention_cutoff(options_.now, settings_.nightly_runs_days);
    if (cutoff.empty() || stop()) return {};
    PT_ASSIGN(const auto runs, schema::list_run_ages(db_));
    for (const auto& run : select_expired_runs(runs, cutoff, settings_.keep_tags)) {
      if (options_.dry_run) {
        report_.runs.push_back(run.key);
        continue;
      }
      if (stop()) break;
      pause();
      auto deleted = schema::delete_run(db_, run.key, "retention", "retention");
      if (!deleted) {
        if (deleted.error().kind == ErrorKind::not_found) continue;  // deleted meanwhile (DELETE /runs)
        return std::move(deleted).error();
      }
      report_.runs.push_back(run.key);
      report_.results += deleted->results;
    }
    return {};
  }

  // Rows older than `days` (webhook deliveries done, outbox actions sent), counted into `into`.
  Result<void> rows(int days, Purge purge, Count count, std::int64_t& into) {
    const auto cutoff = retention_cutoff(options_.now, days);
    if (cutoff.empty()) return {};
    if (options_.dry_run) {
      PT_ASSIGN(into, count(db_, cutoff));
      return {};
    }
    while (!stop()) {
      pause();
      PT_ASSIGN(const std::int64_t n, purge(db_, cutoff, options_.batch_rows));
      into += n;
      if (n < options_.batch_rows) break;
    }
    return {};
  }

  Result<void> audit() {
    if (options_.dry_run || !report_.changed()) return {};
    auto detail = to_json(report_);
    detail["settings"] = {{"raw_files_days", settings_.raw_files_days},
                          {"nightly_runs_days", settings_.nightly_runs_days},
                          {"keep_tags", settings_.keep_tags},
                          {"webhook_deliveries_days", settings_.webhook_deliveries_days},
                          {"sent_outbox_days", settings_.sent_outbox_days}};
    return schema::append_audit(db_, "retention", "retention", "pass", detail.dump());
  }

  schema::Database& db_;
  const RetentionSettings& settings_;
  const RetentionOptions& options_;
  RetentionReport report_;
  bool first_batch_ = true;
};

}  // namespace

Result<RetentionReport> run_retention(schema::Database& db, const RetentionSettings& settings,
                                      const RetentionOptions& options) {
  return RetentionPass(db, settings, options).run();
}

RetentionTask::RetentionTask(AppContext& app, RetentionSettings settings, std::function<void(const std::string&)> log)
    : app_(app), settings_(std::move(settings)), log_(std::move(log)) {}

RetentionTask::~RetentionTask() { stop(); }

void RetentionTask::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void RetentionTask::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void RetentionTask::loop() {
  const auto interval = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::duration<double>(settings_.interval_s > 0 ? settings_.interval_s : 3600.0));
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      if (wake_.wait_for(lock, interval, [this] { return stopping_.load(); })) return;
    }
    auto store = app_.store();
    if (!store) {
      log_(fmt::format("retention: cannot open the database: {}", store.error().message));
      continue;
    }
    // One replica at a time on a shared PostgreSQL: the others skip this round.
    auto turn = schema::TaskLock::try_take((*store)->db(), "retention");
    if (!turn || !turn->held()) continue;
    RetentionOptions options;
    options.stopping = [this] { return stopping_.load(); };
    const auto t0 = std::chrono::steady_clock::now();
    auto report = run_retention((*store)->db(), settings_, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!report) {
      log_(fmt::format("retention: pass failed after {:.1f} s: {} ({})", seconds, report.error().message,
                       report.error().code));
    } else if (report->changed()) {
      auto j = to_json(*report);
      j["seconds"] = seconds;
      log_("retention: " + j.dump());
    }
  }
}

}  // namespace perftriage::server
