#pragma once
// Plain settings, built once in the command that starts the service.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analyzers/labeler/layers.hpp"
#include "ingest/archive.hpp"

namespace perftriage::server {

// One [[github.repos]] table: a repository the bot acts in, with its own taxonomy and what it may do there
// (docs/github.md). Empty strings (and no label_layers) take [github]'s value.
struct RepoSettings {
  std::string repo;                                        // "intel/torch-xpu-ops"; compared without regard to case
  std::string taxonomy;                                    // "" = [github] taxonomy
  std::optional<analyzers::labeler::Layers> label_layers;  // none = [github] label_layers
  std::string label_model;                                 // "" = [github] label_model
  bool label = true;                                       // apply labels
  bool comment = true;                                     // keep the one bot comment
  bool tracking = true;                                    // keep the [[tracking]] issues of this repository
  // Post the verdict of a CI upload that names a commit here (server/bot/upload_check.hpp): a check run, or a commit
  // status, and the pull request's comment. Off unless asked for: it needs checks: write or statuses: write.
  bool checks = false;
};

struct GitHubSettings {
  std::string api_base = "https://api.github.com";  // GitHub Enterprise Server: https://HOST/api/v3
  std::string token;                                // empty = dry run: compute and record, send nothing
  std::string webhook_secret;                       // HMAC-SHA256 key of X-Hub-Signature-256
  std::string token_file;  // [github] token_file: read at start into `token` (${CREDENTIALS_DIRECTORY} expanded)
  std::string webhook_secret_file;  // [github] webhook_secret_file: the same for `webhook_secret`
  // [github] app_id / private_key_file: act as a GitHub App (server/bot/github_app.hpp) instead of with `token`.
  std::string app_id;
  std::string private_key_file;
  std::string private_key;                    // the PEM, read at start from private_key_file
  std::string bot_login = "perftriage[bot]";  // events caused by this login are ignored
  std::string taxonomy = "torch-xpu-ops";
  // [github] label_model: the labeler's learned layer. "" = the taxonomy's built-in model (rules only when it has
  // none), "none" = rules only, else a model file written by `perftriage tracker train`.
  std::string label_model;
  // [github] label_layers: which of the labeler's layers the bot applies: both (the rules, then the model fills),
  // gated (both, then withholding what the tracker's history leaves off), tiered (applied only when nearly certain,
  // the rest suggested); also rules or model.
  analyzers::labeler::Layers label_layers = analyzers::labeler::Layers::both;
  // [github] retrain_corrections / retrain_check_s: serve trains a repository's labeler again once maintainers
  // corrected its labels this many times since it last learned (0 = never), looking every retrain_check_s
  // (server/app/label_retrain.hpp).
  std::int64_t retrain_corrections = 20;
  double retrain_check_s = 3600;
  int max_attempts = 8;                  // then the outbox action is marked failed, visibly
  double min_mutation_interval_s = 1.0;  // one mutation at a time, at least this far apart
  long connect_timeout_ms = 5000;
  long request_timeout_ms = 20000;       // a request hanging longer is retried
  long backoff_base_ms = 1000;           // retries wait base * 2^(attempts-1) ...
  long backoff_cap_ms = 15 * 60 * 1000;  // ... at most this
  // On PostgreSQL, how long a replica's claim on an outbox action lasts before another replica may send it
  // (server/bot/outbox_worker.hpp); SQLite has one writer process and no lease.
  long claim_lease_ms = 5 * 60 * 1000;
  // [[github.repos]]: none = every repository a signed delivery comes from, with the settings above; any = those
  // only, a delivery from another one is answered and ignored.
  std::vector<RepoSettings> repos;

  [[nodiscard]] bool app() const { return !app_id.empty(); }
  // Nothing is sent to GitHub: the outbox records what would be (no token, no App).
  [[nodiscard]] bool dry_run() const { return token.empty() && !app(); }
};

// Each section below is one [table] of the TOML config file (server/app/config.hpp); environment variables
// (PERFTRIAGE_*) override the file and command-line flags override both.

// The access log (server/app/observability.hpp): one JSON line per answered request on stderr, written before the
// answer's bytes leave. Under load it can be thinned: answers below 400 sampled, every line under a per-second cap.
struct AccessLogSettings {
  bool enabled = true;              // [server] access_log
  double sample = 1.0;              // [server] access_log_sample: the share of answers below 400 written
  std::size_t max_lines_per_s = 0;  // [server] access_log_max_per_s: lines written per second at most; 0 = no cap
};

// Whether a kind of request needs a token: "public" (open) or "token".
enum class Access { open, token };
constexpr std::string_view to_string(Access a) { return a == Access::token ? "token" : "public"; }
constexpr std::optional<Access> access_from_name(std::string_view name) {
  if (name == "public") return Access::open;
  if (name == "token") return Access::token;
  return std::nullopt;
}

// Who may do what (server/http/auth.hpp). Tokens live in the database (api_tokens), as salted hashes only.
struct AuthSettings {
  Access read_access = Access::open;  // open: reads need no token | token: every /api/v1 read needs `read`
  // classify and label: open = as read_access says | token: a token with scope read, even when reads are public
  Access compute_access = Access::open;
  std::vector<std::string> cors_origins;  // empty = CORS off (no Access-Control-* headers at all)
};

// Transport limits and timeouts (server/http/http_server.cpp).
struct LimitSettings {
  double header_timeout_s = 10;  // the request line and headers must arrive within this
  double body_timeout_s = 300;   // the whole body (an upload of a nightly archive on a slow link)
  double idle_timeout_s = 30;    // a kept-alive connection with no new request is closed
  double write_timeout_s = 60;
  std::size_t max_connections = 1024;            // past this, new connections are answered 503 and closed
  std::size_t spool_threshold_bytes = 4u << 20;  // bodies larger than this go to a temporary file, not memory
  std::string spool_dir;                         // "" = $TMPDIR or /tmp
  double drain_timeout_s = 20;                   // SIGTERM: in-flight requests get this long to finish
};

// What is kept and for how long (server/app/retention.hpp); 0 = forever.
struct RetentionSettings {
  double interval_s = 3600;   // how often the background task runs
  int raw_files_days = 0;     // drop the raw bytes of uploaded files older than this (parsed rows stay)
  int nightly_runs_days = 0;  // delete whole runs older than this unless tagged with a kept tag
  std::vector<std::string> keep_tags = {"release"};  // runs with a tag starting with one of these are never deleted
  int webhook_deliveries_days = 30;                  // finished ('done') deliveries
  int sent_outbox_days = 90;                         // outbox rows in state sent / dry_run
};

// The HTTP response cache (server/http/response_cache.hpp): GET answers of the read routes, kept until the next
// committed write to the database (by this process or any other).
struct CacheSettings {
  std::size_t max_bytes = 64u << 20;  // [cache] max_mb; 0 = no cache (ETag / 304 / gzip stay on)
};

// One [[tracking]] table of the config file: a tracking issue the service keeps for each (repo, platform, release,
// kind) whose runs the policy matches (server/bot/tracking.hpp).
struct TrackingPolicy {
  std::string repo;                    // "intel/torch-xpu-ops"
  std::vector<std::string> platforms;  // ["BMG"]; any spelling
  std::string runs = "tag:release-*";  // "tag:GLOB" over run tags (the release is what '*' matched) | "key:GLOB"
  std::vector<std::string> kinds = {"slow", "regressions"};
  std::string taxonomy = "torch-xpu-ops";
  std::int64_t settle_seconds = 600;  // a run quiet this long is seen whole (a sharded upload)
};

// Signed notifications (server/bot/tracking.hpp): a JSON POST to each URL when a tracking issue opens, gains cases or
// closes, signed like GitHub's webhooks (X-Perftriage-Signature-256: sha256=HMAC-SHA256(secret, body)).
struct NotifySettings {
  std::vector<std::string> urls;  // [notify] urls; empty = no notification
  std::string secret_file;        // [notify] secret_file: read at start into `secret`
  std::string secret;             // the HMAC key; empty = unsigned
};

struct Settings {
  std::string db_path = "var/perftriage.sqlite";
  // [server] public_url: where people reach the dashboard ("https://perf.example.com"); links the bot posts to GitHub
  // (an upload's check, its pull-request comment) point there. "" = no links.
  std::string public_url;
  std::string listen_host = "127.0.0.1";
  unsigned short listen_port = 8080;
  unsigned threads = 0;                       // I/O threads; 0 = one per CPU core, at least 2 (resolved by `serve`)
  std::size_t max_body_bytes = 256ull << 20;  // one upload: a whole nightly archive fits
  std::size_t max_header_bytes = 16 * 1024;
  // Request handling runs on three bounded pools, never on the I/O threads (see server/http/work_pool.hpp): reads;
  // heavy writes by known callers (uploads, artifacts, triage, signed webhooks); and compute any reader may ask for
  // (classify, label), at a lower priority and with a cap per client. A full queue answers 503 with Retry-After, a
  // client over its cap 429.
  unsigned read_workers = 4;
  std::size_t read_queue = 256;
  unsigned heavy_workers = 2;
  std::size_t heavy_queue = 8;
  unsigned compute_workers = 1;
  std::size_t compute_queue = 4;
  std::size_t compute_per_client = 2;  // requests one client (token, else address) may have queued or running
  double slow_threshold = 1.0;
  ingest::UnpackLimits unpack;
  std::string web_dir;           // dashboard assets; "" = built-in path
  AccessLogSettings access_log;  // [server] access_log*: one JSON line per request on stderr
  bool demo = false;
  bool integrity_check = false;  // PRAGMA integrity_check at start-up; refuse to start on a damaged database
  std::string config_file;       // the TOML file the settings came from ("" = none)
  GitHubSettings github;
  AuthSettings auth;
  LimitSettings limits;
  RetentionSettings retention;
  CacheSettings cache;
  std::vector<TrackingPolicy> tracking;
  NotifySettings notify;
};

}  // namespace perftriage::server
