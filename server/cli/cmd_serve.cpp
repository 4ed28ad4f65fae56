// `perftriage serve`: the settings (defaults < config file < environment < flags, server/app/config.hpp), an optional
// integrity check, migrations and the demo, then the HTTP server and its background tasks.
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <thread>

#include "server/app/app_context.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/app/config.hpp"
#include "server/demo/demo_data.hpp"
#include "server/http/http_server.hpp"
#include "server/bot/outbox_worker.hpp"
#include "server/app/retention.hpp"
#include "server/routes/routes.hpp"
#include "server/bot/webhook_service.hpp"

namespace perftriage::cli {
namespace {

server::WorkerOptions worker_options(const server::GitHubSettings& gh) {
  server::WorkerOptions o;
  o.client.api_base = gh.api_base;
  o.client.token = gh.token;
  o.client.connect_timeout_ms = std::min(gh.connect_timeout_ms, gh.request_timeout_ms);
  o.client.total_timeout_ms = gh.request_timeout_ms;
  o.retry.max_attempts = gh.max_attempts;
  o.retry.base_ms = gh.backoff_base_ms;
  o.retry.cap_ms = gh.backoff_cap_ms;
  o.min_interval_ms = static_cast<std::int64_t>(gh.min_mutation_interval_s * 1000.0);
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
  sqlite3* raw = nullptr;
  // Read-write (never create) so that a WAL left by a crash is recovered first, as the server would see it.
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE, nullptr);
  std::unique_ptr<sqlite3, decltype(&sqlite3_close)> db(raw, &sqlite3_close);
  auto failed = [&](std::string what) {
    return make_error(ErrorKind::internal, "integrity_check_failed",
                      "PRAGMA integrity_check failed; refusing to start (restore a backup: perftriage restore). "
                      "SQLite said:\n" + what, path);
  };
  if (rc != SQLITE_OK) return failed(raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
  sqlite3_busy_timeout(raw, 5000);
  sqlite3_stmt* raw_stmt = nullptr;
  if (sqlite3_prepare_v2(raw, "PRAGMA integrity_check(100)", -1, &raw_stmt, nullptr) != SQLITE_OK) {
    return failed(sqlite3_errmsg(raw));
  }
  std::unique_ptr<sqlite3_stmt, decltype(&sqlite3_finalize)> stmt(raw_stmt, &sqlite3_finalize);
  std::string said;
  int step = SQLITE_ROW;
  while ((step = sqlite3_step(raw_stmt)) == SQLITE_ROW) {
    const auto* line = sqlite3_column_text(raw_stmt, 0);
    said += std::string("  ") + (line ? reinterpret_cast<const char*>(line) : "") + "\n";
  }
  if (step != SQLITE_DONE) return failed(said + "  " + sqlite3_errmsg(raw));
  if (said != "  ok\n") return failed(said);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
  out << "perftriage: integrity_check: ok (" << path << ", " << ms.count() << " ms)" << std::endl;
  return {};
}

}  // namespace

int cmd_serve(const Args& argv, std::ostream& out, std::ostream& err) {
  // Every flag comes from the settings table (server/app/config.cpp), beside its TOML key and environment variable.
  auto args = server::config::parse_command_line(argv);
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  if (!args->positionals.empty()) {
    err << "perftriage: serve takes no arguments, got '" << args->positionals.front() << "'\n";
    return 2;
  }
  auto resolved = server::config::resolve_settings(*args, server::config::process_environment());
  if (!resolved.errors.empty()) {
    for (const auto& e : resolved.errors) err << "perftriage: " << server::config::to_string(e) << "\n";
    err << "perftriage: not started: " << resolved.errors.size() << " configuration error"
        << (resolved.errors.size() == 1 ? "" : "s") << "\n";
    return 2;
  }
  server::Settings settings = std::move(resolved.settings);
  if (!settings.config_file.empty()) out << "perftriage: config " << settings.config_file << std::endl;
  if (settings.threads == 0) settings.threads = std::max(2u, std::thread::hardware_concurrency());
  if (settings.demo) {
    settings.github.token.clear();  // the demo's issues and comments are made up: nothing may reach GitHub
    out << "perftriage: demo: GitHub is never contacted (any configured token is ignored)" << std::endl;
  }

  if (settings.integrity_check) {
    if (auto intact = check_integrity(settings.db_path, out); !intact) {
      print_error(err, intact.error());
      return 1;
    }
  }
  {  // migrate (and load the demo) before accepting connections
    auto store = open_store(settings.db_path);
    if (!store) {
      print_error(err, store.error());
      return 1;
    }
    if (settings.demo) {
      auto added = server::load_demo_data(*store);
      if (!added) {
        print_error(err, added.error());
        return 1;
      }
      out << "perftriage: demo data: " << *added << " runs added\n";
    }
    // Deliveries in progress when the process last stopped: once more, or quarantined (never a crash loop).
    server::recover_deliveries(*store, settings.github, err);
  }
  server::AppContext app(settings);
  const server::Router router = server::make_router();
  server::HttpServer http(app, router);
  auto bound = http.listen(settings.listen_host, settings.listen_port);
  if (!bound) {
    print_error(err, bound.error());
    return 1;
  }
  // Tests and scripts read this line to learn the port when started with :0.
  out << "perftriage: listening on http://" << settings.listen_host << ":" << *bound << " (db " << settings.db_path
      << ")" << std::endl;

  // Background tasks, started once the listener is bound and stopped after the I/O loop returns.
  // The outbox worker sends the bot's actions; without a token they are recorded as dry_run and nothing is sent.
  std::optional<server::OutboxWorker> worker;
  if (settings.github.token.empty()) {
    out << "perftriage: GitHub bot: dry run (no token): actions are recorded, nothing is sent" << std::endl;
  } else {
    worker.emplace(app, worker_options(settings.github));
    worker->start();
    out << "perftriage: GitHub bot: sending to " << settings.github.api_base << std::endl;
  }
  if (settings.github.webhook_secret.empty()) {
    out << "perftriage: GitHub bot: no webhook secret: POST /webhooks/github answers 401" << std::endl;
  }
  // Retention ([retention], server/app/retention.hpp): a pass every interval_s when a rule is on; stopped (and joined)
  // when this function returns, after the I/O loop.
  server::RetentionTask retention(app, settings.retention, [&err](const std::string& line) {
    err << "perftriage: " << line << std::endl;
  });
  if (server::retention_enabled(settings.retention)) retention.start();

  http.run(settings.threads);
  if (worker) worker->stop();
  out << "perftriage: stopped" << std::endl;
  return 0;
}

}  // namespace perftriage::cli
