#include "server/app/observability.hpp"

// Metrics: one prometheus-cpp Registry for what is counted as requests are served (counters and histograms are
// atomic; the per-label-set references are cached so a request costs one short lock and no label validation), and a
// Registry built per scrape for what lives in the database (outbox and delivery states, runs, file sizes), so a state
// that emptied reads 0 instead of a stale value. Label values come from bounded sets only: route PATTERNS (never the
// raw path), known methods (else "other"), status codes, error codes our own code chose.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <atomic>
#include <cctype>
#include <cmath>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>
#include <spdlog/common.h>
#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>

#include "common/log.hpp"
#include "common/json_text.hpp"
#include "common/json_writer.hpp"
#include "schema/bot_store.hpp"
#include "schema/database_size.hpp"
#include "schema/store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/label_feedback.hpp"

#ifndef PERFTRIAGE_VERSION
#define PERFTRIAGE_VERSION "unknown"
#endif

namespace perftriage::server {
namespace {

// The access log's sink: each line reaches stderr in one write(2) as it is logged, before the answer it describes
// is sent. Buffering lines for a second saved a system call per request but lost a second of lines to every crash,
// so that answers a client saw were missing from the log; a server too busy for a write per request thins the log
// instead ([server] access_log_sample, access_log_max_per_s).
class StderrLineSink final : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    std::size_t done = 0;
    while (done < formatted.size()) {
      const ssize_t n = ::write(STDERR_FILENO, formatted.data() + done, formatted.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // a closed or full stderr loses the line, never the request
      done += static_cast<std::size_t>(n);
    }
  }
  void flush_() override {}
};

// Which lines the access log writes: every error, a share of the rest, and no more than a cap per second.
class LogGate {
 public:
  explicit LogGate(const AccessLogSettings& s) : sample_(std::clamp(s.sample, 0.0, 1.0)), cap_(s.max_lines_per_s) {}
  enum class Verdict { write, sampled_out, over_cap };
  Verdict admit(unsigned status) {
    if (status < 400 && !sampled_in()) return Verdict::sampled_out;
    return within_cap() ? Verdict::write : Verdict::over_cap;
  }

 private:
  // Deterministic: the n-th answer is written when n * sample crosses an integer, so exactly that share is kept.
  bool sampled_in() {
    if (sample_ >= 1.0) return true;
    const auto n = static_cast<double>(answers_.fetch_add(1, std::memory_order_relaxed));
    return std::floor((n + 1) * sample_) > std::floor(n * sample_);
  }
  bool within_cap() {
    if (cap_ == 0) return true;
    const auto second =
        std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
    std::lock_guard lock(mutex_);
    if (second != window_) {
      window_ = second;
      written_ = 0;
    }
    return written_++ < cap_;
  }
  double sample_;
  std::size_t cap_;
  std::atomic<std::uint64_t> answers_{0};
  std::mutex mutex_;
  std::int64_t window_ = -1;
  std::size_t written_ = 0;
};

}  // namespace

namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;

// 1 ms .. 60 s: dashboard reads are a few ms, uploads of a nightly archive tens of seconds.
const Histogram::BucketBoundaries& duration_buckets() {
  static const Histogram::BucketBoundaries b{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                             0.5,   1,      2.5,   5,    10,    20,   30,  60};
  return b;
}

// Methods outside this set (Beast accepts any token) would let a client mint label values.
std::string_view bounded_method(std::string_view m) {
  static constexpr std::array<std::string_view, 7> kKnown{"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"};
  for (auto k : kKnown)
    if (k == m) return k;
  return "other";
}

// Label values that come from code (error codes, reasons, outcomes) are short identifiers; anything else is folded.
std::string bounded_token(std::string_view v) {
  if (v.empty() || v.size() > 64) return "other";
  for (unsigned char c : v)
    if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.')) return "other";
  return std::string(v);
}

std::string iso_utc_ms(std::chrono::system_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
}

std::int64_t file_size_or_zero(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : static_cast<std::int64_t>(n);
}

double resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long long pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0;
  return static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double open_fds() {
  std::error_code ec;
  double n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end; it.increment(ec)) ++n;
  return n;
}

}  // namespace

struct Observability::Impl {
  explicit Impl(const AccessLogSettings& log_settings)
      : registry(std::make_shared<prometheus::Registry>()),
        requests(prometheus::BuildCounter()
                     .Name("perftriage_http_requests_total")
                     .Help("HTTP requests answered, by route pattern, method and status")
                     .Register(*registry)),
        durations(prometheus::BuildHistogram()
                      .Name("perftriage_http_request_duration_seconds")
                      .Help("From the first byte of the request header to the last byte of the response written")
                      .Register(*registry)),
        bytes_in(prometheus::BuildCounter()
                     .Name("perftriage_http_request_bytes_total")
                     .Help("Request body bytes received, by route pattern")
                     .Register(*registry)),
        bytes_out(prometheus::BuildCounter()
                      .Name("perftriage_http_response_bytes_total")
                      .Help("Response body bytes sent, by route pattern")
                      .Register(*registry)),
        open_connections(prometheus::BuildGauge()
                             .Name("perftriage_open_connections")
                             .Help("Client connections open now")
                             .Register(*registry)
                             .Add({})),
        refused_connections(prometheus::BuildCounter()
                                .Name("perftriage_connections_refused_total")
                                .Help("Connections refused or cut off, by reason (connection cap, timeouts)")
                                .Register(*registry)),
        rows(prometheus::BuildCounter()
                 .Name("perftriage_rows_ingested_total")
                 .Help("Result rows stored by uploads (duplicate files count nothing)")
                 .Register(*registry)
                 .Add({})),
        uploads_refused(prometheus::BuildCounter()
                            .Name("perftriage_uploads_refused_total")
                            .Help("Uploads refused, by error code")
                            .Register(*registry)),
        webhooks(prometheus::BuildCounter()
                     .Name("perftriage_webhook_deliveries_total")
                     .Help("GitHub webhook deliveries received, by event and outcome")
                     .Register(*registry)),
        cache(prometheus::BuildCounter()
                  .Name("perftriage_cache_lookups_total")
                  .Help("In-memory cache lookups, by cache and result (hit, miss)")
                  .Register(*registry)),
        cache_bytes(prometheus::BuildGauge()
                        .Name("perftriage_cache_bytes")
                        .Help("Bytes held by an in-memory cache, by cache")
                        .Register(*registry)),
        cache_entries(prometheus::BuildGauge()
                          .Name("perftriage_cache_entries")
                          .Help("Entries held by an in-memory cache, by cache")
                          .Register(*registry)),
        build_info(prometheus::BuildGauge()
                       .Name("perftriage_build_info")
                       .Help("Always 1; the version of the running binary")
                       .Register(*registry)),
        start_time(prometheus::BuildGauge()
                       .Name("process_start_time_seconds")
                       .Help("Start time of the process since the Unix epoch, in seconds")
                       .Register(*registry)
                       .Add({})),
        log_skipped(prometheus::BuildCounter()
                        .Name("perftriage_access_log_skipped_total")
                        .Help("Access-log lines not written, by reason (sampled out, over the per-second cap)")
                        .Register(*registry)),
        access_log(log_settings.enabled),
        gate(log_settings) {
    build_info.Add({{"version", PERFTRIAGE_VERSION}}).Set(1);
    start_time.Set(std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count());
    // The label sets known in advance exist from the start (at 0), so rate() and alerts see them before the first
    // event.
    for (const char* c : {"dashboard", "response"})
      for (const char* r : {"hit", "miss"}) cache.Add({{"cache", c}, {"result", r}});
    for (const char* r : {"connection_cap", "header_timeout", "body_timeout", "idle_timeout", "write_timeout"})
      refused_connections.Add({{"reason", r}});
    for (const char* r : {"sampled", "over_cap"}) log_skipped.Add({{"reason", r}});
    auto sink = std::make_shared<StderrLineSink>();
    logger = std::make_shared<spdlog::logger>("access", std::move(sink));  // not registered: one per instance
    logger->set_pattern("%v");
    logger->set_level(spdlog::level::info);
    // Flushed once now, while descriptors are surely free: the UBSan build checks the sink's dynamic type at its
    // first call, and that check opens a pipe; out of descriptors (tests/e2e/hardening) it would fail.
    logger->flush();
  }
  ~Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  Counter& request_counter(std::string_view route, std::string_view method, unsigned status) {
    std::string key = fmt::format("{}\n{}\n{}", route, method, status);
    std::lock_guard lock(mutex);
    auto it = request_series.find(key);
    if (it != request_series.end()) return *it->second;
    Counter& c = requests.Add(
        {{"route", std::string(route)}, {"method", std::string(method)}, {"status", std::to_string(status)}});
    request_series.emplace(std::move(key), &c);
    return c;
  }

  struct PerRoute {  // {route, method} and {route}
    Histogram* duration;
    Counter* in;
    Counter* out;
  };
  PerRoute route_series(std::string_view route, std::string_view method) {
    std::string key = fmt::format("{}\n{}", route, method);
    std::lock_guard lock(mutex);
    auto it = route_cache.find(key);
    if (it != route_cache.end()) return it->second;
    PerRoute p{&durations.Add({{"route", std::string(route)}, {"method", std::string(method)}}, duration_buckets()),
               &bytes_in.Add({{"route", std::string(route)}}), &bytes_out.Add({{"route", std::string(route)}})};
    route_cache.emplace(std::move(key), p);
    return p;
  }

  std::shared_ptr<prometheus::Registry> registry;
  Family<Counter>& requests;
  Family<Histogram>& durations;
  Family<Counter>& bytes_in;
  Family<Counter>& bytes_out;
  Gauge& open_connections;
  Family<Counter>& refused_connections;
  Counter& rows;
  Family<Counter>& uploads_refused;
  Family<Counter>& webhooks;
  Family<Counter>& cache;
  Family<Gauge>& cache_bytes;
  Family<Gauge>& cache_entries;
  Family<Gauge>& build_info;
  Gauge& start_time;
  Family<Counter>& log_skipped;
  std::atomic<bool> access_log;
  LogGate gate;
  std::shared_ptr<spdlog::logger> logger;
  std::mutex mutex;
  std::unordered_map<std::string, Counter*> request_series;  // {route, method, status}
  std::unordered_map<std::string, PerRoute> route_cache;
};

Observability::Observability(AccessLogSettings access_log) : impl_(std::make_unique<Impl>(access_log)) {}
Observability::~Observability() = default;

void Observability::set_access_log(bool enabled) { impl_->access_log.store(enabled, std::memory_order_relaxed); }

void Observability::request_done(const RequestRecord& r) {
  const std::string_view method = bounded_method(r.method);
  const std::string& route = r.route.empty() ? std::string("unmatched") : r.route;
  impl_->request_counter(route, method, r.status).Increment();
  auto series = impl_->route_series(route, method);
  series.duration->Observe(r.seconds);
  series.in->Increment(static_cast<double>(r.bytes_in));
  series.out->Increment(static_cast<double>(r.bytes_out));
  if (!impl_->access_log.load(std::memory_order_relaxed)) return;
  if (const auto verdict = impl_->gate.admit(r.status); verdict != LogGate::Verdict::write) {
    impl_->log_skipped.Add({{"reason", verdict == LogGate::Verdict::sampled_out ? "sampled" : "over_cap"}}).Increment();
    return;
  }
  // Written straight to text, keys in the order nlohmann::json would dump them (sorted); invalid UTF-8 in a path
  // is replaced (U+FFFD), never thrown.
  JsonWriter line(256);
  line.begin_object()
      .member("bytes_in", static_cast<std::int64_t>(r.bytes_in))
      .member("bytes_out", static_cast<std::int64_t>(r.bytes_out))
      .member("duration_ms", std::round(r.seconds * 1e6) / 1e3)
      .member("method", r.method)
      .member("path", r.target)
      .member("remote", r.remote)
      .member("request_id", r.request_id)
      .member("route", route)
      .member("status", static_cast<std::int64_t>(r.status))
      .member("time", iso_utc_ms(std::chrono::system_clock::now()));
  line.key("token");
  if (r.token_name.empty()) {
    line.null();
  } else {
    line.string(r.token_name);
  }
  line.end_object();
  try {
    impl_->logger->info(line.text());
  } catch (...) {  // a full disk or a closed stderr must not fail the request
  }
}

void Observability::connection_opened() { impl_->open_connections.Increment(); }
void Observability::connection_closed() { impl_->open_connections.Decrement(); }
void Observability::connection_refused(std::string_view reason) {
  impl_->refused_connections.Add({{"reason", bounded_token(reason)}}).Increment();
}
void Observability::rows_ingested(std::int64_t n) {
  if (n > 0) impl_->rows.Increment(static_cast<double>(n));
}
void Observability::upload_refused(std::string_view reason) {
  impl_->uploads_refused.Add({{"reason", bounded_token(reason)}}).Increment();
}
void Observability::webhook_delivery(std::string_view event, std::string_view outcome) {
  static constexpr std::array<std::string_view, 3> kEvents{"issues", "issue_comment", "ping"};
  std::string ev = "other";
  for (auto k : kEvents)
    if (k == event) ev = std::string(k);
  impl_->webhooks.Add({{"event", ev}, {"outcome", bounded_token(outcome)}}).Increment();
}
void Observability::cache_lookup(std::string_view cache, bool hit) {
  impl_->cache.Add({{"cache", bounded_token(cache)}, {"result", hit ? "hit" : "miss"}}).Increment();
}
void Observability::cache_size(std::string_view cache, std::uint64_t bytes, std::uint64_t entries) {
  impl_->cache_bytes.Add({{"cache", bounded_token(cache)}}).Set(static_cast<double>(bytes));
  impl_->cache_entries.Add({{"cache", bounded_token(cache)}}).Set(static_cast<double>(entries));
}

namespace {

// The gauges read at scrape time: the database's own state and the process's, in a registry built per scrape.
struct ScrapeGauges {
  explicit ScrapeGauges(prometheus::Registry& now)
      : db_bytes(prometheus::BuildGauge()
                     .Name("perftriage_database_bytes")
                     .Help("Size of the database: the SQLite file (settings db_path), or PostgreSQL's "
                           "pg_database_size")
                     .Register(now)
                     .Add({})),
        wal_bytes(prometheus::BuildGauge()
                      .Name("perftriage_wal_bytes")
                      .Help("Size of the SQLite write-ahead log (db_path-wal); checkpoints shrink it")
                      .Register(now)
                      .Add({})),
        outbox(prometheus::BuildGauge()
                   .Name("perftriage_outbox_actions")
                   .Help("GitHub actions in the bot's outbox, by state (failed = gave up after max_attempts)")
                   .Register(now)),
        deliveries(prometheus::BuildGauge()
                       .Name("perftriage_webhook_deliveries")
                       .Help("Recorded webhook deliveries, by state")
                       .Register(now)),
        runs(prometheus::BuildGauge().Name("perftriage_runs").Help("Stored runs").Register(now)),
        db_up(prometheus::BuildGauge()
                  .Name("perftriage_database_up")
                  .Help("1 when the gauges read from the database at this scrape are current, 0 when it failed")
                  .Register(now)
                  .Add({})) {
    prometheus::BuildGauge()
        .Name("process_resident_memory_bytes")
        .Help("Resident memory size in bytes")
        .Register(now)
        .Add({})
        .Set(resident_bytes());
    prometheus::BuildGauge()
        .Name("process_open_fds")
        .Help("Open file descriptors")
        .Register(now)
        .Add({})
        .Set(open_fds());
  }
  Gauge& db_bytes;
  Gauge& wal_bytes;
  Family<Gauge>& outbox;
  Family<Gauge>& deliveries;
  Family<Gauge>& runs;
  Gauge& db_up;
};

// perftriage_bot_labels{repo,label,outcome}: what maintainers did to the bot's labels (label_feedback.hpp). Bounded
// by the repositories the bot labels in and their taxonomies: a label counts as added only when the repository's
// taxonomy has it, and the bot applies no other. A failed read leaves them out and says so; the other gauges stand.
void label_gauges(prometheus::Registry& now, AppContext& app) {
  auto read = [&]() -> Result<std::vector<LabelFeedback>> {
    PT_ASSIGN(auto store, app.store());
    return label_feedback(store->db(), app.settings().github, "");
  };
  const auto rows = read();
  if (!rows) {
    log().error("/metrics could not read the bot's label outcomes: {}", rows.error().message);
    return;
  }
  auto& labels = prometheus::BuildGauge()
                     .Name("perftriage_bot_labels")
                     .Help(
                         "Labels the bot applied that maintainers kept or removed, and taxonomy labels they added "
                         "on issues the bot labeled, by repository and label")
                     .Register(now);
  for (const auto& r : *rows) {
    const std::pair<const char*, std::int64_t> outcomes[] = {
        {"kept", r.kept}, {"removed", r.removed}, {"added", r.added}};
    for (const auto& [outcome, n] : outcomes)
      labels.Add({{"repo", r.repo}, {"label", r.label}, {"outcome", outcome}}).Set(static_cast<double>(n));
  }
}

}  // namespace

std::string Observability::render(AppContext& app) {
  auto families = impl_->registry->Collect();
  prometheus::Registry now;
  ScrapeGauges gauges(now);
  auto& [db_bytes, wal_bytes, outbox, deliveries, runs, db_up] = gauges;
  std::map<std::string, double> outbox_states{{"pending", 0}, {"sent", 0}, {"failed", 0}, {"dry_run", 0}};
  std::map<std::string, double> delivery_states{{"processing", 0}, {"done", 0}, {"quarantined", 0}};
  double run_count = 0;
  std::optional<std::int64_t> server_bytes;  // PostgreSQL's own count; SQLite's is the file's
  auto read = [&]() -> Result<void> {
    PT_ASSIGN(auto store, app.store());
    auto& db = store->db();
    PT_ASSIGN(server_bytes, schema::server_database_bytes(db));
    PT_ASSIGN(const auto outbox_counts, schema::outbox_counts(db));
    for (const auto& [state, n] : outbox_counts) outbox_states[bounded_token(state)] = static_cast<double>(n);
    PT_ASSIGN(const auto delivery_counts, schema::delivery_counts(db));
    for (const auto& [state, n] : delivery_counts) delivery_states[bounded_token(state)] = static_cast<double>(n);
    PT_ASSIGN(const std::int64_t runs_stored, schema::count_runs(db));
    run_count = static_cast<double>(runs_stored);
    return {};
  };
  auto ok = read();
  // After the read: the first scrape may be what created the database.
  const auto& db_path = app.settings().db_path;
  db_bytes.Set(static_cast<double>(server_bytes ? *server_bytes : file_size_or_zero(db_path)));
  wal_bytes.Set(static_cast<double>(file_size_or_zero(db_path + "-wal")));
  db_up.Set(ok ? 1 : 0);
  if (ok) {
    for (const auto& [state, n] : outbox_states) outbox.Add({{"state", state}}).Set(n);
    for (const auto& [state, n] : delivery_states) deliveries.Add({{"state", state}}).Set(n);
    runs.Add({}).Set(run_count);
    label_gauges(now, app);
  } else {
    log().error("/metrics could not read the database: {}", ok.error().message);
  }
  auto more = now.Collect();
  families.insert(families.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return std::move(out).str();
}

std::string_view build_version() noexcept { return PERFTRIAGE_VERSION; }

}  // namespace perftriage::server
