// perftriage retention run [--db PATH] [--config FILE] [--dry-run] [--json]
//     [--raw-files-days N] [--nightly-runs-days N] [--keep-tag T]... [--webhook-deliveries-days N]
//     [--sent-outbox-days N]
// One retention pass (server/app/retention.hpp) outside the server: for cron, or to see what a pass would do
// (--dry-run counts and changes nothing). The rules come from the [retention] section of the config file
// (--config or PERFTRIAGE_CONFIG) and PERFTRIAGE_RETENTION_* like serve's, and the flags above override them.
// Safe while the server runs: every batch is its own short write transaction.
#include <memory>
#include <optional>
#include <ostream>

#include "server/app/config.hpp"
#include "server/app/retention.hpp"
#include "server/app/tables.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {

namespace {

struct RetentionOptions {
  std::string db, config;
  std::optional<int> raw_files_days, nightly_runs_days, webhook_deliveries_days, sent_outbox_days;
  std::vector<std::string> keep_tags;
  bool dry_run = false, json = false;
};

// defaults < config file < PERFTRIAGE_* < the flags, as serve resolves them (no secrets needed here).
Result<int> retention(const RetentionOptions& o, Io io) {
  server::config::Overrides overrides;
  overrides.config_file = o.config;
  if (!o.db.empty()) overrides.values.push_back({"database.path", o.db, "--db"});
  auto resolved = server::config::resolve_settings(overrides, server::config::process_environment(), false);
  if (!resolved.errors.empty()) {
    for (const auto& e : resolved.errors) io.err << "perftriage: " << server::config::to_string(e) << "\n";
    return 2;
  }
  server::RetentionSettings rules = resolved.settings.retention;
  for (auto [given, into] : {std::pair{&o.raw_files_days, &rules.raw_files_days},
                             {&o.nightly_runs_days, &rules.nightly_runs_days},
                             {&o.webhook_deliveries_days, &rules.webhook_deliveries_days},
                             {&o.sent_outbox_days, &rules.sent_outbox_days}}) {
    if (*given) *into = **given;
  }
  if (!o.keep_tags.empty()) rules.keep_tags = o.keep_tags;
  PT_ASSIGN(auto store, open_store(resolved.settings.db_path));
  server::RetentionOptions options;
  options.dry_run = o.dry_run;
  PT_ASSIGN(const auto report, server::run_retention(store.db(), rules, options));
  if (o.json) {
    io.out << server::rendered_json(server::to_json(report)).body;
    return 0;
  }
  const char* verb = options.dry_run ? "would " : "";
  io.out << "retention" << (options.dry_run ? " (dry run)" : "") << ": " << verb << "drop the raw bytes of "
         << report.raw_files << " files (" << report.raw_bytes << " bytes), " << verb << "delete " << report.runs.size()
         << " runs, " << report.deliveries << " webhook deliveries, " << report.outbox << " outbox rows\n";
  for (const auto& key : report.runs) io.out << "  run " << key << "\n";
  if (!server::retention_enabled(rules)) io.out << "(every rule is 0 = keep forever)\n";
  return 0;
}

}  // namespace

void add_retention(const Command& cmd) {
  cmd.app->require_subcommand(1);
  auto o = std::make_shared<RetentionOptions>();
  const Command run{cmd.app->add_subcommand("run", "one pass of the retention rules"), cmd.io, cmd.chosen};
  CLI::App& app = *run.app;
  app.add_option("--db", o->db,
                 "the database (default: as serve resolves it: [database] path, $PERFTRIAGE_DB, "
                 "var/perftriage.sqlite)")
      ->type_name("PATH");
  app.add_option("--config", o->config,
                 "the TOML config file whose [retention] rules apply (default: "
                 "$PERFTRIAGE_CONFIG)");
  app.add_flag("--dry-run", o->dry_run, "count what a pass would do, change nothing");
  app.add_flag("--json", o->json, "print the report as JSON");
  const auto days = CLI::Range(0, 36500);
  app.add_option("--raw-files-days", o->raw_files_days, "[retention] raw_files_days (0 = keep forever)")->check(days);
  app.add_option("--nightly-runs-days", o->nightly_runs_days, "[retention] nightly_runs_days")->check(days);
  app.add_option("--keep-tag", o->keep_tags, "[retention] keep_tags (repeatable; replaces the configured ones)");
  app.add_option("--webhook-deliveries-days", o->webhook_deliveries_days, "[retention] webhook_deliveries_days")
      ->check(days);
  app.add_option("--sent-outbox-days", o->sent_outbox_days, "[retention] sent_outbox_days")->check(days);
  run.on_run([o, io = cmd.io] { return [o, io] { return retention(*o, io); }; });
}

}  // namespace perftriage::cli
