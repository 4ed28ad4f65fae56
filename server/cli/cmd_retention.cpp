// perftriage retention run [--db PATH] [--config FILE] [--dry-run] [--json]
//     [--raw-files-days N] [--nightly-runs-days N] [--keep-tag T]... [--webhook-deliveries-days N]
//     [--sent-outbox-days N]
// One retention pass (server/app/retention.hpp) outside the server: for cron, or to see what a pass would do
// (--dry-run counts and changes nothing). The rules come from the [retention] section of the config file
// (--config or PERFTRIAGE_CONFIG) and PERFTRIAGE_RETENTION_* like serve's, and the flags above override them.
// Safe while the server runs: every batch is its own short write transaction.
#include <charconv>
#include <ostream>

#include "server/cli/args.hpp"
#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/app/config.hpp"
#include "server/http/http_types.hpp"
#include "server/app/retention.hpp"

namespace perftriage::cli {

namespace {

constexpr const char* kUsage =
    "usage: perftriage retention run [--db PATH] [--config FILE] [--dry-run] [--json] [--raw-files-days N]\n"
    "       [--nightly-runs-days N] [--keep-tag T]... [--webhook-deliveries-days N] [--sent-outbox-days N]\n";

}  // namespace

int cmd_retention(const Args& argv, std::ostream& out, std::ostream& err) {
  if (argv.empty() || argv.front() != "run") {
    err << kUsage;
    return 2;
  }
  auto args = parse_args(Args(argv.begin() + 1, argv.end()),
                         {"db", "config", "raw-files-days", "nightly-runs-days", "keep-tag",
                          "webhook-deliveries-days", "sent-outbox-days"},
                         {"dry-run", "json"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  if (!args->positionals.empty()) {
    err << kUsage;
    return 2;
  }
  // defaults < config file < PERFTRIAGE_* < --db, as serve resolves them (no secrets needed here)
  ParsedArgs layered;
  for (const char* name : {"config", "db"}) {
    if (auto v = args->get(name)) layered.values[name] = {*v};
  }
  auto resolved = server::config::resolve_settings(layered, server::config::process_environment(), false);
  if (!resolved.errors.empty()) {
    for (const auto& e : resolved.errors) err << "perftriage: " << server::config::to_string(e) << "\n";
    return 2;
  }
  server::RetentionSettings rules = resolved.settings.retention;
  for (auto [flag, into] : {std::pair{"raw-files-days", &rules.raw_files_days},
                            {"nightly-runs-days", &rules.nightly_runs_days},
                            {"webhook-deliveries-days", &rules.webhook_deliveries_days},
                            {"sent-outbox-days", &rules.sent_outbox_days}}) {
    auto v = args->get(flag);
    if (!v) continue;
    int days = -1;
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), days);
    if (ec != std::errc() || end != v->data() + v->size() || days < 0 || days > 36500) {
      err << "perftriage: --" << flag << " takes a number of days from 0 (keep forever) to 36500, got '" << *v
          << "'\n";
      return 2;
    }
    *into = days;
  }
  if (args->has("keep-tag")) rules.keep_tags = args->all("keep-tag");

  auto store = open_store(resolved.settings.db_path);
  if (!store) {
    print_error(err, store.error());
    return 1;
  }
  server::RetentionOptions options;
  options.dry_run = args->has("dry-run");
  auto report = server::run_retention(store->db(), rules, options);
  if (!report) {
    print_error(err, report.error());
    return 1;
  }
  if (args->has("json")) {
    out << server::dump_json(server::to_json(*report)) << "\n";
    return 0;
  }
  const char* verb = options.dry_run ? "would " : "";
  out << "retention" << (options.dry_run ? " (dry run)" : "") << ": " << verb << "drop the raw bytes of "
      << report->raw_files << " files (" << report->raw_bytes << " bytes), " << verb << "delete "
      << report->runs.size() << " runs, " << report->deliveries << " webhook deliveries, " << report->outbox
      << " outbox rows\n";
  for (const auto& key : report->runs) out << "  run " << key << "\n";
  if (!server::retention_enabled(rules)) out << "(every rule is 0 = keep forever)\n";
  return 0;
}

}  // namespace perftriage::cli
