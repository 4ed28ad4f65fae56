// `perftriage serve`: the settings (defaults < config file < environment < flags, server/app/config.hpp; every flag
// comes from the settings table, server/cli/settings_flags.hpp), an optional integrity check, migrations and the
// demo, then the HTTP server and its background tasks.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

#include "common/heap_tuning.hpp"
#include "common/periodic_task.hpp"
#include "schema/backup.hpp"
#include "schema/database.hpp"
#include "server/app/app_context.hpp"
#include "server/app/config.hpp"
#include "server/app/label_retrain.hpp"
#include "server/app/retention.hpp"
#include "server/bot/outbox_worker.hpp"
#include "server/bot/tracking.hpp"
#include "server/bot/webhook_service.hpp"
#include "server/cli/commands.hpp"
#include "server/cli/settings_flags.hpp"
#include "server/demo/demo_data.hpp"
#include "server/http/http_server.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::cli {
namespace {

Result<server::WorkerOptions> worker_options(const server::GitHubSettings& gh) {
  server::WorkerOptions o;
  o.client.api_base = gh.api_base;
  o.client.token = gh.token;
  if (gh.app()) {
    PT_ASSIGN(o.client.app, server::GitHubAppAuth::create({gh.app_id, gh.private_key}));
  }
  o.client.connect_timeout_ms = std::min(gh.connect_timeout_ms, gh.request_timeout_ms);
  o.client.total_timeout_ms = gh.request_timeout_ms;
  o.retry.max_attempts = gh.max_attempts;
  o.retry.base_ms = gh.backoff_base_ms;
  o.retry.cap_ms = gh.backoff_cap_ms;
  o.min_interval_ms = static_cast<std::int64_t>(gh.min_mutation_interval_s * 1000.0);
  o.claim_lease_ms = gh.claim_lease_ms;
  return o;
}

// PRAGMA integrity_check on the database file before anything else opens it (and before migrations write to it).
// integrity_check rather than quick_check: it also verifies that every index matches its table, which is what a
// torn write or a copied-while-open file breaks; it reads the whole file (about a second per GB), which is why it
// is behind a flag. A missing file is a new database and passes.
Result<void> check_integrity(const std::string& path, std::ostream& out) {
  std::error_code ec;
  if (path == ":memory:" || !std::filesystem::exists(path, ec)) return {};
  const auto started = std::chrono::steady_clock::now();
  auto failed = [&](const std::string& what) {
    return make_error(ErrorKind::internal, "integrity_check_failed",
                      "SQLite's integrity_check failed; refusing to start (restore a backup: perftriage restore). "
                      "SQLite said:\n" +
                          what,
                      path);
  };
  auto lines = schema::integrity_check_file(path);
  if (!lines) return failed("  " + lines.error().message + "\n");
  std::string said;
  for (const auto& line : *lines) said += "  " + line + "\n";
  if (said != "  ok\n") return failed(said);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  out << "perftriage: integrity_check: ok (" << path << ", " << ms.count() << " ms)" << std::endl;
  return {};
}

// The settings as `serve` runs with them; nullopt after printing every configuration error.
std::optional<server::Settings> resolve(const SettingsFlags& flags, Io io) {
  auto resolved = server::config::resolve_settings(to_overrides(flags), server::config::process_environment());
  if (!resolved.errors.empty()) {
    for (const auto& e : resolved.errors) io.err << "perftriage: " << server::config::to_string(e) << "\n";
    io.err << "perftriage: not started: " << resolved.errors.size() << " configuration error"
           << (resolved.errors.size() == 1 ? "" : "s") << "\n";
    return std::nullopt;
  }
  server::Settings settings = std::move(resolved.settings);
  if (!settings.config_file.empty()) io.out << "perftriage: config " << settings.config_file << std::endl;
  if (settings.threads == 0) settings.threads = std::max(2u, std::thread::hardware_concurrency());
  if (settings.demo) {
    settings.github.token.clear();  // the demo's issues and comments are made up: nothing may reach GitHub
    settings.github.app_id.clear();
    settings.github.private_key.clear();
    io.out << "perftriage: demo: GitHub is never contacted (any configured token is ignored)" << std::endl;
  }
  return settings;
}

// Before accepting connections: the integrity check, migrations, the demo data, and the deliveries in progress when
// the process last stopped (once more, or quarantined: never a crash loop).
Result<void> prepare_database(const server::Settings& settings, Io io) {
  if (settings.integrity_check) PT_TRY(check_integrity(settings.db_path, io.out));
  PT_ASSIGN(auto store, open_store(settings.db_path));
  if (settings.demo) {
    PT_ASSIGN(const auto added, server::load_demo_data(store));
    io.out << "perftriage: demo data: " << added << " runs added\n";
  }
  server::recover_deliveries(store, settings.github, io.err);
  return {};
}

// Listens, runs the I/O loop with the background tasks, returns when the server stops.
Result<int> run_server(const server::Settings& settings, Io io) {
  server::AppContext app(settings);
  const server::Router router = server::make_router();
  server::HttpServer http(app, router);
  PT_ASSIGN(const auto port, http.listen(settings.listen_host, settings.listen_port));
  // Tests and scripts read this line to learn the port when started with :0.
  io.out << "perftriage: listening on http://" << settings.listen_host << ":" << port << " (db "
         << schema::printable_db_path(settings.db_path) << ")" << std::endl;
  // The outbox worker sends the bot's actions; without a token they are recorded as dry_run and nothing is sent.
  std::optional<server::OutboxWorker> worker;
  if (settings.github.dry_run()) {
    io.out << "perftriage: GitHub bot: dry run (no token, no App): actions are recorded, nothing is sent" << std::endl;
  } else {
    PT_ASSIGN(auto options, worker_options(settings.github));
    worker.emplace(app, std::move(options));
    worker->start();
    io.out << "perftriage: GitHub bot: sending to " << settings.github.api_base
           << (settings.github.app() ? " as App " + settings.github.app_id + " (installation tokens)" : "")
           << std::endl;
  }
  if (settings.github.webhook_secret.empty()) {
    io.out << "perftriage: GitHub bot: no webhook secret: POST /webhooks/github answers 401" << std::endl;
  }
  if (settings.github.repos.empty()) {
    io.out << "perftriage: GitHub bot: every repository, taxonomy " << settings.github.taxonomy << std::endl;
  }
  for (const auto& r : settings.github.repos) {
    io.out << "perftriage: GitHub bot: " << r.repo << ", taxonomy "
           << (r.taxonomy.empty() ? settings.github.taxonomy : r.taxonomy) << (r.label ? "" : ", no labels")
           << (r.comment ? "" : ", no comment") << (r.tracking ? "" : ", no tracking issues") << std::endl;
  }
  // Retention ([retention], server/app/retention.hpp): a pass every interval_s when a rule is on; stopped (and
  // joined) when this function returns, after the I/O loop.
  server::RetentionTask retention(app, settings.retention, [err = &io.err](const std::string& line) {
    *err << "perftriage: " << line << std::endl;
  });
  if (server::retention_enabled(settings.retention)) retention.start();
  // Tracking issues ([[tracking]], server/bot/tracking.hpp): a pass every half second over what changed.
  server::TrackingTask tracking(
      app, [err = &io.err](const std::string& line) { *err << "perftriage: " << line << std::endl; }, 500);
  if (!settings.tracking.empty()) {
    tracking.start();
    io.out << "perftriage: tracking issues: " << settings.tracking.size() << " polic"
           << (settings.tracking.size() == 1 ? "y" : "ies") << std::endl;
  }
  // On PostgreSQL, a webhook delivery whose replica died while processing it is left leased (the others answer
  // "in_progress" to its copies); after the lease, the first replica to look here processes it, once (claim_delivery
  // hands it to one). On SQLite the one process recovers what its predecessor left at start (prepare_database).
  PeriodicTask delivery_recovery(std::chrono::milliseconds(server::kDeliveryLeaseMs / 3), [&app, &settings, &io] {
    if (auto store = app.store()) server::recover_deliveries(**store, settings.github, io.err);
  });
  if (schema::is_postgres_url(settings.db_path)) delivery_recovery.start();
  // The labeler learns from the maintainers' corrections (server/app/label_retrain.hpp).
  // The first look a minute after the start (a server restarted more often than retrain_check_s still learns), then
  // every retrain_check_s; a training in progress when the server stops is cut short, not waited for.
  const auto every = std::chrono::milliseconds(std::llround(settings.github.retrain_check_s * 1000.0));
  PeriodicTask retrain(
      every, [&app, &retrain] { server::retrain_pass(app, [&retrain] { return retrain.stopping(); }); },
      std::min(every, std::chrono::milliseconds(60'000)));
  if (settings.github.retrain_corrections > 0) retrain.start();
  http.run(settings.threads);
  retrain.stop();
  delivery_recovery.stop();
  if (worker) worker->stop();
  io.out << "perftriage: stopped" << std::endl;
  return 0;
}

Result<int> serve(const SettingsFlags& flags, Io io) {
  keep_freed_heap();  // common/heap_tuning.hpp: a large answer does not fault its memory in afresh each time
  const auto settings = resolve(flags, io);
  if (!settings) return 2;  // a usage error: the configuration
  PT_TRY(prepare_database(*settings, io));
  return run_server(*settings, io);
}

}  // namespace

void add_serve(const Command& cmd) {
  auto flags = std::make_shared<SettingsFlags>();
  add_settings_flags(*cmd.app, *flags);
  cmd.app->footer(
      "Each setting also comes from the config file ([section] key) and the environment "
      "(PERFTRIAGE_SECTION_KEY); `perftriage config keys` lists them all, with the keys that have no "
      "flag.");
  cmd.on_run([flags, io = cmd.io] { return [flags, io] { return serve(*flags, io); }; });
}

}  // namespace perftriage::cli
