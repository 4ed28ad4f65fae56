// perftriage tracker sync --repo OWNER/NAME [--since YYYY-MM-DD|ISO] [--db PATH] [--api-base URL] [--token-file PATH]
//                         [--config FILE] [--max-pages N] [--max-wait-s N] [--json]
//     A tracker's issues and labels into tracker_issues (server/bot/tracker_sync.hpp): resumes a stopped sync, or
//     syncs incrementally after a finished one. The GitHub API, token, timeouts and backoff are the bot's settings
//     ([github] of the config file, PERFTRIAGE_GITHUB_*; --api-base and --token-file override them). Exit 1 when it
//     stopped before the end (a rate limit over --max-wait-s, GitHub unavailable): the progress is saved.
// perftriage tracker export --repo OWNER/NAME [--db PATH]
//     The stored issues as JSONL, one {"repo", "number", "url", "title", "labels", "body"} a line, by number: the
//     format `perftriage label-eval` reads (tests/fixtures/labeler/real/).
// perftriage tracker train: server/cli/cmd_tracker_train.cpp.
// See docs/tracker-sync.md.
#include <memory>
#include <ostream>

#include <nlohmann/json.hpp>

#include "schema/tracker_store.hpp"
#include "server/app/config.hpp"
#include "server/app/tables.hpp"
#include "server/bot/tracker_sync.hpp"
#include "server/cli/commands.hpp"

namespace perftriage::cli {
namespace {

using nlohmann::json;
namespace config = server::config;

struct TrackerOptions {
  std::string db, repo, since, api_base, token_file, config_file;
  std::int64_t max_pages = 0;
  std::int64_t max_wait_s = 900;
  bool json = false;
};

Result<void> check_repo(const std::string& repo) {
  if (server::is_github_repo(repo)) return {};
  return make_error(ErrorKind::invalid_input, "bad_repo",
                    "--repo is a GitHub repository as owner/name, not '" + repo + "'", {}, 0, "repo");
}

// The bot's GitHub settings (defaults < config file < environment < these flags), as `serve` resolves them.
Result<server::GitHubSettings> github_settings(const TrackerOptions& o) {
  config::Overrides overrides;
  overrides.config_file = o.config_file;
  if (!o.api_base.empty()) overrides.values.push_back({"github.api", o.api_base, "--api-base"});
  if (!o.token_file.empty()) overrides.values.push_back({"github.token_file", o.token_file, "--token-file"});
  auto resolved = config::resolve_settings(overrides, config::process_environment());
  if (!resolved.errors.empty()) {
    std::string all;
    for (const auto& e : resolved.errors) all += (all.empty() ? "" : "; ") + config::to_string(e);
    return make_error(ErrorKind::invalid_input, "bad_config", all);
  }
  return std::move(resolved.settings.github);
}

void print_report(const server::TrackerSyncReport& r, bool as_json, std::ostream& out) {
  if (as_json) {
    out << server::rendered_json(server::to_json(r)).body;
    return;
  }
  out << "tracker sync " << r.repo << " (" << r.mode << (r.since.empty() ? "" : " since " + r.since) << "): " << r.pages
      << " pages, " << r.issues << " issues written, " << r.pull_requests << " pull requests skipped";
  if (r.invalid) out << ", " << r.invalid << " invalid items skipped";
  if (r.truncated) out << ", " << r.truncated << " issues cut to the size limits";
  if (r.rate_limit_waits) out << ", " << r.rate_limit_waits << " rate-limit waits (" << r.waited_ms / 1000 << " s)";
  if (r.retries) out << ", " << r.retries << " retries";
  out << "; " << r.stored << " issues stored; "
      << (r.state.finished ? "finished"
          : r.error        ? "stopped (run it again to continue)"
                           : "not finished (--max-pages): run it again to continue")
      << "\n";
}

Result<int> sync(const TrackerOptions& o, Io io) {
  PT_TRY(check_repo(o.repo));
  PT_TRY(server::normalize_since(o.since));
  PT_ASSIGN(const auto gh, github_settings(o));
  if (gh.dry_run()) {
    io.err << "perftriage: tracker sync: no GitHub token (--token-file, [github] token_file, PERFTRIAGE_GITHUB_TOKEN) "
              "and no App ([github] app_id): unauthenticated requests, 60 an hour\n";
  }
  std::shared_ptr<server::GitHubAppAuth> app;
  if (gh.app()) {
    PT_ASSIGN(app, server::GitHubAppAuth::create({gh.app_id, gh.private_key}));
  }
  server::GitHubClient client({.api_base = gh.api_base,
                               .token = gh.token,
                               .app = app,
                               .connect_timeout_ms = std::min(gh.connect_timeout_ms, gh.request_timeout_ms),
                               .total_timeout_ms = gh.request_timeout_ms,
                               .max_response_bytes = server::kTrackerPageBytes});
  server::TrackerSyncOptions options;
  options.repo = o.repo;
  options.since = o.since;
  options.max_pages = o.max_pages;
  options.max_wait_ms = o.max_wait_s * 1000;
  options.retry.base_ms = gh.backoff_base_ms;
  options.log = [err = &io.err](const std::string& line) { *err << "perftriage: " << line << std::endl; };
  PT_ASSIGN(auto store, open_store(o.db));
  PT_ASSIGN(auto report, server::sync_tracker(store.db(), client, options));
  print_report(report, o.json, io.out);
  if (report.error) return std::move(*report.error);
  return 0;
}

// One line as the evaluation sets write it (Python's json.dumps): ", " and ": " between items, UTF-8 as is.
std::string export_line(const schema::TrackerIssue& issue) {
  auto text = [](const std::string& s) { return json(s).dump(-1, ' ', false, json::error_handler_t::replace); };
  std::string labels;
  for (const auto& l : issue.labels) labels += (labels.empty() ? "" : ", ") + text(l);
  return "{\"repo\": " + text(issue.repo) + ", \"number\": " + std::to_string(issue.number) +
         ", \"url\": " + text("https://github.com/" + issue.repo + "/issues/" + std::to_string(issue.number)) +
         ", \"title\": " + text(issue.title) + ", \"labels\": [" + labels + "], \"body\": " + text(issue.body) + "}";
}

Result<int> export_issues(const TrackerOptions& o, Io io) {
  PT_TRY(check_repo(o.repo));
  PT_ASSIGN(auto store, open_existing_store(o.db));
  PT_ASSIGN(const auto issues, schema::list_tracker_issues(store.db(), o.repo));
  for (const auto& issue : issues) io.out << export_line(issue) << "\n";
  return 0;
}

void add_sync(const Command& cmd) {
  auto o = std::make_shared<TrackerOptions>();
  const Command s{cmd.app->add_subcommand("sync", "pull a tracker's issues and labels into the database (resumable)"),
                  cmd.io, cmd.chosen};
  add_db_option(*s.app, o->db);
  s.app->add_option("--repo", o->repo, "the tracker: owner/name")->required()->type_name("OWNER/NAME");
  s.app->add_option("--since", o->since, "only issues updated since: YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC)")
      ->type_name("DATE");
  s.app->add_option("--api-base", o->api_base, "GitHub's REST API (default: [github] api, https://api.github.com)")
      ->type_name("URL");
  s.app->add_option("--token-file", o->token_file, "file holding a GitHub token (default: the bot's token)")
      ->type_name("PATH");
  s.app->add_option("--config", o->config_file, "the config file whose [github] settings apply (or PERFTRIAGE_CONFIG)")
      ->type_name("FILE");
  s.app->add_option("--max-pages", o->max_pages, "stop after this many pages, resumable (0 = until the end)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  s.app->add_option("--max-wait-s", o->max_wait_s, "the longest rate-limit wait; a longer one stops the sync")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{7 * 24 * 3600}))
      ->capture_default_str();
  s.app->add_flag("--json", o->json, "print the report as JSON");
  s.on_run([o, io = cmd.io] { return [o, io] { return sync(*o, io); }; });
}

}  // namespace

void add_tracker(const Command& cmd) {
  cmd.app->require_subcommand(1, 1);
  add_sync(cmd);
  auto o = std::make_shared<TrackerOptions>();
  const Command e{cmd.app->add_subcommand("export", "the stored issues as JSONL (the format label-eval reads)"), cmd.io,
                  cmd.chosen};
  add_db_option(*e.app, o->db);
  e.app->add_option("--repo", o->repo, "the tracker: owner/name")->required()->type_name("OWNER/NAME");
  e.on_run([o, io = cmd.io] { return [o, io] { return export_issues(*o, io); }; });
  add_tracker_train(
      {cmd.app->add_subcommand("train", "fit the labeler's learned layer on a tracker's history"), cmd.io, cmd.chosen});
}

}  // namespace perftriage::cli
