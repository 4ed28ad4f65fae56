// Configuration: the TOML file, the environment, the flags and their precedence, every error with its line,
// the masked effective settings, ${CREDENTIALS_DIRECTORY}, and docs/config.md and deploy/perftriage.toml checked
// against the table in code so they cannot drift.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "tests/support/files.hpp"
#include "server/app/config.hpp"
#include "server/cli/settings_flags.hpp"

namespace perftriage::server::config {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using testing::TempDir;

// serve's command line as the CLI turns it into overrides (server/cli/settings_flags.hpp).
Overrides args_of(std::vector<std::string> argv) {
  auto parsed = cli::parse_settings_flags(argv);
  EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().message);
  return parsed.ok() ? *parsed : Overrides{};
}

std::string all(const ConfigErrors& errors) {
  std::string out;
  for (const auto& e : errors) out += to_string(e) + "\n";
  return out;
}

constexpr const char* kFullConfig = R"(# every key, none at its default
[server]
listen = "0.0.0.0:9123"
public_url = "https://perf.example.com/"
threads = 3
read_access = "token"
cors_origins = ["https://dash.example.org", "http://localhost:5173"]
web_dir = "/srv/web"
read_workers = 5
read_queue = 77
heavy_workers = 3
heavy_queue = 9
compute_workers = 2
compute_queue = 6
compute_per_client = 3
compute_access = "token"
slow_threshold = 0.9
integrity_check = true
demo = true
access_log = false
access_log_sample = 0.25
access_log_max_per_s = 500

[database]
path = "/var/lib/perftriage/db.sqlite"

[limits]
max_body_mb = 100
max_header_kb = 32
header_timeout_s = 5
body_timeout_s = 120.5
idle_timeout_s = 15
write_timeout_s = 45
max_connections = 200
spool_threshold_mb = 2
spool_dir = "/var/tmp/spool"
drain_timeout_s = 7
max_archive_entries = 500
max_multipart_parts = 50
max_archive_entry_mb = 64
max_archive_total_mb = 256
max_archive_ratio = 50
archive_ratio_floor_mb = 32

[github]
api = "https://ghe.example.org/api/v3"
token_file = "/etc/perftriage/token"
app_id = "4242"
private_key_file = "/etc/perftriage/app.pem"
webhook_secret_file = "/etc/perftriage/secret"
bot_login = "triage-bot"
taxonomy = "custom"
label_model = "none"
label_layers = "gated"
retrain_corrections = 7
retrain_check_s = 60
min_interval_ms = 250
timeout_ms = 3000
backoff_ms = 500
max_attempts = 4
claim_lease_ms = 20000

[retention]
interval_s = 600
raw_files_days = 30
nightly_runs_days = 90
keep_tags = ["release", "keep"]
webhook_deliveries_days = 7
sent_outbox_days = 14

[notify]
urls = ["https://hooks.example.org/perftriage"]
secret_file = "/run/secrets/notify"

[cache]
max_mb = 16

[[tracking]]
repo = "intel/torch-xpu-ops"
platforms = ["BMG", "PVC"]
runs = "key:bmg-release-*"
kinds = ["slow"]
taxonomy = "torch-xpu-ops"
settle_seconds = 30
)";

TEST(ConfigToml, LabelModelMustBeAModelOrNone) {
  Settings s;
  EXPECT_TRUE(apply_toml("[github]\nlabel_model = \"none\"\n", "t.toml", s).empty());
  EXPECT_EQ(s.github.label_model, "none");
  EXPECT_TRUE(apply_toml("[github]\nlabel_model = \"torch-xpu-ops\"\n", "t.toml", s).empty());  // the built-in
  const auto errors = apply_toml("[github]\nlabel_model = \"/nonexistent/model.json\"\n", "t.toml", s);
  const std::string text = all(errors);
  EXPECT_NE(text.find("t.toml:2:"), std::string::npos) << text;
  EXPECT_NE(text.find("is not a label model"), std::string::npos) << text;
  EXPECT_EQ(s.github.label_model, "torch-xpu-ops");  // the bad value is not applied
}

TEST(ConfigToml, LabelLayersMustBeALayerName) {
  Settings s;
  EXPECT_EQ(s.github.label_layers,
            analyzers::labeler::Layers::both);  // the default: it gives the seed issue's own triage
  EXPECT_TRUE(apply_toml("[github]\nlabel_layers = \"gated\"\n", "t.toml", s).empty());
  EXPECT_EQ(s.github.label_layers, analyzers::labeler::Layers::gated);
  const auto errors = apply_toml("[github]\nlabel_layers = \"some\"\n", "t.toml", s);
  const std::string text = all(errors);
  EXPECT_NE(text.find("t.toml:2:"), std::string::npos) << text;
  EXPECT_NE(text.find("must be rules, model, both, gated or tiered"), std::string::npos) << text;
  EXPECT_EQ(s.github.label_layers, analyzers::labeler::Layers::gated);  // the bad value is not applied
}

TEST(ConfigToml, GithubReposAreReadInOrderWithGithubKeysAsDefaults) {
  Settings s;
  const auto errors = apply_toml(R"([github]
taxonomy = "torch-xpu-ops"

[[github.repos]]
repo = "intel/torch-xpu-ops"

[[github.repos]]
repo = "pytorch/pytorch"
taxonomy = "pytorch"
label_layers = "gated"
label_model = "none"
comment = false
tracking = false
checks = true
)",
                                 "t.toml", s);
  EXPECT_TRUE(errors.empty()) << all(errors);
  ASSERT_EQ(s.github.repos.size(), 2u);
  EXPECT_EQ(s.github.repos[0].repo, "intel/torch-xpu-ops");
  EXPECT_EQ(s.github.repos[0].taxonomy, "");  // [github] taxonomy, filled in when used
  EXPECT_TRUE(s.github.repos[0].label && s.github.repos[0].comment && s.github.repos[0].tracking);
  EXPECT_EQ(s.github.repos[1].taxonomy, "pytorch");
  EXPECT_EQ(s.github.repos[1].label_layers, analyzers::labeler::Layers::gated);
  EXPECT_FALSE(s.github.repos[1].comment);
  EXPECT_FALSE(s.github.repos[1].tracking);
  EXPECT_EQ(s.github.repos[1].label_model, "none");
  EXPECT_FALSE(s.github.repos[0].checks);  // off unless asked for
  EXPECT_TRUE(s.github.repos[1].checks);
}

TEST(ConfigToml, GithubReposNameEachMistakeWithItsLine) {
  Settings s;
  const auto errors = apply_toml(R"([[github.repos]]
repo = "torch-xpu-ops"
taxonomy = "/etc/passwd"
label_layers = "all"
comment = "no"
colour = "red"
label_model = "/nonexistent/model.json"

[[github.repos]]
taxonomy = "pytorch"

[[github.repos]]
repo = "o/r"

[[github.repos]]
repo = "O/R"

[[tracking]]
repo = "other/tracker"
platforms = ["BMG"]
)",
                                 "t.toml", s);
  const std::string text = all(errors);
  for (const char* expected :
       {"t.toml:2:8: [[github.repos]] repo must be \"owner/name\"",
        "t.toml:3:12: [[github.repos]] taxonomy names no taxonomy",
        "t.toml:4:16: [[github.repos]] label_layers must be",
        "t.toml:5:11: [[github.repos]] comment must be true or false",
        "t.toml:6:1: unknown key 'colour' in [[github.repos]]",
        "t.toml:7:15: [[github.repos]] label_model is not a label model", "[[github.repos]] needs repo",
        "[[github.repos]] lists O/R twice", "[[tracking]] repo other/tracker is not in [[github.repos]]"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  ASSERT_EQ(s.github.repos.size(), 1u);  // only the table without a mistake
  EXPECT_EQ(s.github.repos[0].repo, "o/r");
  EXPECT_FALSE(apply_toml("[github]\nrepos = 3\n", "t.toml", s).empty());
}

TEST(ConfigToml, TrackingPoliciesNameEachMistakeWithItsLine) {
  Settings s;
  const auto errors = apply_toml(R"([[tracking]]
repo = "torch-xpu-ops"
platforms = []
runs = "release-*"
kinds = ["slow", "crashes"]
taxonomy = "/etc/passwd"
settle_seconds = -1
colour = "red"
)",
                                 "t.toml", s);
  const std::string text = all(errors);
  for (const char* expected :
       {"t.toml:2:8: [[tracking]] repo must be \"owner/name\"",
        "t.toml:3:13: [[tracking]] platforms must be a non-empty array of strings",
        "t.toml:4:8: [[tracking]] runs must be", "kinds are \"slow\" and \"regressions\", not \"crashes\"",
        "t.toml:6:12: [[tracking]] taxonomy names no taxonomy",
        "t.toml:7:18: [[tracking]] settle_seconds must be an integer from 0 to 86400",
        "t.toml:8:1: unknown key 'colour' in [[tracking]]"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << "\n" << text;
  }
  EXPECT_TRUE(s.tracking.empty());  // a policy with a mistake is not applied
  EXPECT_FALSE(apply_toml("tracking = 3\n", "t.toml", s).empty());
}

TEST(ConfigToml, EveryKeyIsApplied) {
  Settings s;
  Sources sources;
  const auto errors = apply_toml(kFullConfig, "full.toml", s, &sources);
  ASSERT_TRUE(errors.empty()) << all(errors);
  EXPECT_EQ(s.listen_host, "0.0.0.0");
  EXPECT_EQ(s.listen_port, 9123);
  EXPECT_EQ(s.public_url, "https://perf.example.com/");
  EXPECT_EQ(s.github.app_id, "4242");
  EXPECT_EQ(s.github.private_key_file, "/etc/perftriage/app.pem");
  EXPECT_EQ(s.github.retrain_corrections, 7);
  EXPECT_DOUBLE_EQ(s.github.retrain_check_s, 60);
  EXPECT_EQ(s.threads, 3u);
  EXPECT_EQ(s.auth.read_access, Access::token);
  EXPECT_EQ(s.auth.cors_origins, (std::vector<std::string>{"https://dash.example.org", "http://localhost:5173"}));
  EXPECT_EQ(s.web_dir, "/srv/web");
  EXPECT_EQ(s.read_workers, 5u);
  EXPECT_EQ(s.read_queue, 77u);
  EXPECT_EQ(s.heavy_workers, 3u);
  EXPECT_EQ(s.heavy_queue, 9u);
  EXPECT_EQ(s.compute_workers, 2u);
  EXPECT_EQ(s.compute_queue, 6u);
  EXPECT_EQ(s.compute_per_client, 3u);
  EXPECT_EQ(s.auth.compute_access, Access::token);
  EXPECT_DOUBLE_EQ(s.access_log.sample, 0.25);
  EXPECT_EQ(s.access_log.max_lines_per_s, 500u);
  EXPECT_DOUBLE_EQ(s.slow_threshold, 0.9);
  EXPECT_TRUE(s.integrity_check);
  EXPECT_TRUE(s.demo);
  EXPECT_FALSE(s.access_log.enabled);
  EXPECT_EQ(s.db_path, "/var/lib/perftriage/db.sqlite");
  EXPECT_EQ(s.notify.urls, (std::vector<std::string>{"https://hooks.example.org/perftriage"}));
  EXPECT_EQ(s.notify.secret_file, "/run/secrets/notify");
  ASSERT_EQ(s.tracking.size(), 1u);
  EXPECT_EQ(s.tracking[0].repo, "intel/torch-xpu-ops");
  EXPECT_EQ(s.tracking[0].platforms, (std::vector<std::string>{"BMG", "PVC"}));
  EXPECT_EQ(s.tracking[0].runs, "key:bmg-release-*");
  EXPECT_EQ(s.tracking[0].kinds, (std::vector<std::string>{"slow"}));
  EXPECT_EQ(s.tracking[0].settle_seconds, 30);
  EXPECT_EQ(s.max_body_bytes, 100u << 20);
  EXPECT_EQ(s.max_header_bytes, 32u << 10);
  EXPECT_DOUBLE_EQ(s.limits.header_timeout_s, 5);
  EXPECT_DOUBLE_EQ(s.limits.body_timeout_s, 120.5);
  EXPECT_DOUBLE_EQ(s.limits.idle_timeout_s, 15);
  EXPECT_DOUBLE_EQ(s.limits.write_timeout_s, 45);
  EXPECT_EQ(s.limits.max_connections, 200u);
  EXPECT_EQ(s.limits.spool_threshold_bytes, 2u << 20);
  EXPECT_EQ(s.limits.spool_dir, "/var/tmp/spool");
  EXPECT_DOUBLE_EQ(s.limits.drain_timeout_s, 7);
  EXPECT_EQ(s.unpack.max_entries, 500u);
  EXPECT_EQ(s.unpack.max_parts, 50u);
  EXPECT_EQ(s.unpack.max_entry_bytes, 64u << 20);
  EXPECT_EQ(s.unpack.max_total_bytes, 256u << 20);
  EXPECT_EQ(s.unpack.max_ratio, 50u);
  EXPECT_EQ(s.unpack.ratio_floor_bytes, 32u << 20);
  EXPECT_EQ(s.github.api_base, "https://ghe.example.org/api/v3");
  EXPECT_EQ(s.github.token_file, "/etc/perftriage/token");
  EXPECT_EQ(s.github.webhook_secret_file, "/etc/perftriage/secret");
  EXPECT_EQ(s.github.bot_login, "triage-bot");
  EXPECT_EQ(s.github.taxonomy, "custom");
  EXPECT_DOUBLE_EQ(s.github.min_mutation_interval_s, 0.25);
  EXPECT_EQ(s.github.request_timeout_ms, 3000);
  EXPECT_EQ(s.github.backoff_base_ms, 500);
  EXPECT_EQ(s.github.max_attempts, 4);
  EXPECT_EQ(s.github.claim_lease_ms, 20000);
  EXPECT_DOUBLE_EQ(s.retention.interval_s, 600);
  EXPECT_EQ(s.retention.raw_files_days, 30);
  EXPECT_EQ(s.retention.nightly_runs_days, 90);
  EXPECT_EQ(s.retention.keep_tags, (std::vector<std::string>{"release", "keep"}));
  EXPECT_EQ(s.retention.webhook_deliveries_days, 7);
  EXPECT_EQ(s.retention.sent_outbox_days, 14);
  EXPECT_EQ(s.cache.max_bytes, 16u << 20);
  // Every key of the table is in the file above, and differs from its default: none was silently skipped.
  const Settings defaults;
  for (const auto& o : options()) {
    EXPECT_TRUE(sources.count(o.name())) << o.name() << " not applied";
    EXPECT_NE(toml_literal(o.get(s)), toml_literal(o.get(defaults))) << o.name() << " kept its default";
  }
  EXPECT_EQ(sources.at("server.listen"), "full.toml:3");
}

TEST(ConfigToml, EveryErrorIsReportedWithItsLineAndColumn) {
  Settings s;
  const auto errors = apply_toml(
      "[server]\n"                    // 1
      "listn = \"0.0.0.0:80\"\n"      // 2 unknown key, with a suggestion
      "threads = \"four\"\n"          // 3 wrong type
      "read_workers = 0\n"            // 4 out of range
      "read_access = \"everyone\"\n"  // 5 bad value
      "[limits]\n"                    // 6
      "max_body_mb = 1.5\n"           // 7 float for an integer
      "header_timeout_s = 0\n"        // 8 must be > 0
      "[srever]\n"                    // 9 unknown section
      "x = 1\n"                       // 10
      "[retention]\n"                 // 11
      "keep_tags = [\"a\", 3]\n"      // 12 a number in a list of strings
      "path = \"x\"\n",               // 13 a key of another section
      "bad.toml", s);
  ASSERT_EQ(errors.size(), 9u) << all(errors);
  std::set<std::int64_t> lines;
  for (const auto& e : errors) {
    EXPECT_EQ(e.source, "bad.toml");
    EXPECT_GT(e.column, 0);
    lines.insert(e.line);
  }
  EXPECT_EQ(lines, (std::set<std::int64_t>{2, 3, 4, 5, 7, 8, 9, 12, 13}));
  const std::string text = all(errors);
  EXPECT_NE(text.find("bad.toml:2:1: unknown key 'listn' in [server] (did you mean 'listen'?)"), std::string::npos)
      << text;
  EXPECT_NE(text.find("bad.toml:3:11: [server] threads must be an integer, got a string"), std::string::npos) << text;
  EXPECT_NE(text.find("bad.toml:4:16: [server] read_workers must be between 1 and 256, got 0"), std::string::npos)
      << text;
  EXPECT_NE(text.find("read_access must be \"public\" or \"token\""), std::string::npos) << text;
  EXPECT_NE(text.find("max_body_mb must be an integer, got a floating-point number"), std::string::npos) << text;
  EXPECT_NE(text.find("header_timeout_s must be > 0 and <= 3600, got 0"), std::string::npos) << text;
  EXPECT_NE(text.find("bad.toml:9:2: unknown section [srever]"), std::string::npos) << text;
  EXPECT_NE(text.find("bad.toml:12:19: [retention] keep_tags must hold strings only"), std::string::npos) << text;
  EXPECT_NE(text.find("unknown key 'path' in [retention] (it belongs in [database])"), std::string::npos) << text;
  // A value with an error leaves the setting as it was.
  EXPECT_EQ(s.threads, Settings{}.threads);
  EXPECT_EQ(s.listen_port, 8080);
}

TEST(ConfigToml, SyntaxErrorHasItsPosition) {
  Settings s;
  const auto errors = apply_toml("[server]\nlisten = \"127.0.0.1:1\"\nthreads = = 3\n", "syntax.toml", s);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].line, 3);
  EXPECT_GT(errors[0].column, 0);
  EXPECT_NE(errors[0].message.find("TOML syntax"), std::string::npos) << errors[0].message;
}

TEST(ConfigToml, KeyOutsideASectionAndIntegersForNumbers) {
  Settings s;
  const auto errors = apply_toml("listen = \"1.2.3.4:5\"\n[server]\nslow_threshold = 1\n", "t.toml", s);
  ASSERT_EQ(errors.size(), 1u) << all(errors);
  EXPECT_EQ(to_string(errors[0]), "t.toml:1:1: key 'listen' outside a section (it belongs in [server])");
  EXPECT_DOUBLE_EQ(s.slow_threshold, 1.0);
}

TEST(ConfigFile, MissingFileIsAnError) {
  Settings s;
  const auto errors = apply_file("/nonexistent/perftriage.toml", s);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(to_string(errors[0]).find("/nonexistent/perftriage.toml: cannot read the config file"), std::string::npos);
}

TEST(ConfigEnv, OverridesAndErrors) {
  Settings s;
  Sources sources;
  const Env env = {{"PERFTRIAGE_SERVER_LISTEN", "[::1]:9000"},
                   {"PERFTRIAGE_SERVER_CORS_ORIGINS", " https://a.example , https://b.example,"},
                   {"PERFTRIAGE_SERVER_INTEGRITY_CHECK", "yes"},
                   {"PERFTRIAGE_LIMITS_MAX_BODY_MB", "12"},
                   {"PERFTRIAGE_LIMITS_IDLE_TIMEOUT_S", "2.5"},
                   {"PERFTRIAGE_RETENTION_KEEP_TAGS", ""},
                   {"PERFTRIAGE_GITHUB_TOKEN", "tok-123\n"},
                   {"PERFTRIAGE_WEBHOOK_SECRET", "sec"},
                   {"PERFTRIAGE_CONFIG", "ignored-here"},
                   {"PERFTRIAGE_FAULT_WEBHOOK_ABORT", "not a setting"},
                   {"HOME", "/root"}};
  ASSERT_TRUE(apply_env(env, s, &sources).empty());
  EXPECT_EQ(s.listen_host, "::1");
  EXPECT_EQ(s.listen_port, 9000);
  EXPECT_EQ(s.auth.cors_origins, (std::vector<std::string>{"https://a.example", "https://b.example"}));
  EXPECT_TRUE(s.integrity_check);
  EXPECT_EQ(s.max_body_bytes, 12u << 20);
  EXPECT_DOUBLE_EQ(s.limits.idle_timeout_s, 2.5);
  EXPECT_TRUE(s.retention.keep_tags.empty());
  EXPECT_EQ(s.github.token, "tok-123");
  EXPECT_EQ(s.github.webhook_secret, "sec");
  EXPECT_EQ(sources.at("server.listen"), "PERFTRIAGE_SERVER_LISTEN");
  EXPECT_EQ(toml_literal(find_option("server", "listen")->get(s)), "\"[::1]:9000\"");

  Settings bad;
  const auto errors = apply_env({{"PERFTRIAGE_SERVER_THREADS", "many"},
                                 {"PERFTRIAGE_SERVER_LISTN", "x"},
                                 {"PERFTRIAGE_SERVER_DEMO", "maybe"},
                                 {"PERFTRIAGE_LIMITS_MAX_CONNECTIONS", "0"}},
                                bad);
  const std::string text = all(errors);
  ASSERT_EQ(errors.size(), 4u) << text;
  EXPECT_NE(text.find("PERFTRIAGE_SERVER_THREADS: must be an integer, got 'many'"), std::string::npos) << text;
  EXPECT_NE(text.find("PERFTRIAGE_SERVER_LISTN: not a setting"), std::string::npos) << text;
  EXPECT_NE(text.find("PERFTRIAGE_SERVER_DEMO: must be true or false"), std::string::npos) << text;
  EXPECT_NE(text.find("PERFTRIAGE_LIMITS_MAX_CONNECTIONS: must be between 1 and 1000000, got 0"), std::string::npos);
}

TEST(ConfigResolve, FileThenEnvironmentThenFlags) {
  TempDir dir;
  const auto file = dir.write("p.toml",
                              "[server]\nlisten = \"127.0.0.1:1111\"\nthreads = 3\nread_workers = 7\n"
                              "[database]\npath = \"from-file.sqlite\"\n[limits]\nheader_timeout_s = 4\n");
  // The file alone.
  auto r = resolve_settings(args_of({"--config", file}), {});
  ASSERT_TRUE(r.errors.empty()) << all(r.errors);
  EXPECT_EQ(r.settings.listen_port, 1111);
  EXPECT_EQ(r.settings.config_file, file);
  // The environment beats the file.
  const Env env = {{"PERFTRIAGE_SERVER_LISTEN", "127.0.0.1:2222"}, {"PERFTRIAGE_SERVER_THREADS", "5"}};
  r = resolve_settings(args_of({"--config", file}), env);
  ASSERT_TRUE(r.errors.empty()) << all(r.errors);
  EXPECT_EQ(r.settings.listen_port, 2222);
  EXPECT_EQ(r.settings.threads, 5u);
  EXPECT_EQ(r.settings.read_workers, 7u);  // from the file, untouched by the environment
  // Flags beat both.
  r = resolve_settings(args_of({"--config", file, "--listen", "127.0.0.1:3333", "--db", "flag.sqlite",
                                "--header-timeout-s", "0.5", "--integrity-check", "--read-access", "token"}),
                       env);
  ASSERT_TRUE(r.errors.empty()) << all(r.errors);
  EXPECT_EQ(r.settings.listen_port, 3333);
  EXPECT_EQ(r.settings.threads, 5u);
  EXPECT_EQ(r.settings.db_path, "flag.sqlite");
  EXPECT_DOUBLE_EQ(r.settings.limits.header_timeout_s, 0.5);
  EXPECT_TRUE(r.settings.integrity_check);
  EXPECT_EQ(r.settings.auth.read_access, Access::token);
  EXPECT_EQ(r.sources.at("server.listen"), "--listen");
  EXPECT_EQ(r.sources.at("server.threads"), "PERFTRIAGE_SERVER_THREADS");
  EXPECT_EQ(r.sources.at("server.read_workers"), file + ":4");
  // PERFTRIAGE_CONFIG names the file when --config does not.
  r = resolve_settings(args_of({}), {{"PERFTRIAGE_CONFIG", file}});
  ASSERT_TRUE(r.errors.empty()) << all(r.errors);
  EXPECT_EQ(r.settings.db_path, "from-file.sqlite");
  // Errors of every layer at once.
  const auto bad = dir.write("bad.toml", "[server]\nthreads = -1\n");
  r = resolve_settings(args_of({"--config", bad, "--max-connections", "zero"}), {{"PERFTRIAGE_SERVER_DEMO", "x"}});
  EXPECT_EQ(r.errors.size(), 3u) << all(r.errors);
  // A missing file.
  r = resolve_settings(args_of({"--config", (dir.path() / "missing.toml").string()}), {});
  ASSERT_EQ(r.errors.size(), 1u);
}

TEST(ConfigResolve, EveryExistingServeFlagStillWorks) {
  auto r = resolve_settings(args_of({"--db",
                                     "d.sqlite",
                                     "--listen",
                                     "127.0.0.1:0",
                                     "--threads",
                                     "4",
                                     "--web-dir",
                                     "/w",
                                     "--threshold",
                                     "0.8",
                                     "--max-body-mb",
                                     "8",
                                     "--github-api",
                                     "http://127.0.0.1:9",
                                     "--bot-login",
                                     "b",
                                     "--bot-taxonomy",
                                     "t",
                                     "--github-min-interval-ms",
                                     "0",
                                     "--github-timeout-ms",
                                     "100",
                                     "--github-backoff-ms",
                                     "10",
                                     "--github-max-attempts",
                                     "2",
                                     "--read-workers",
                                     "1",
                                     "--read-queue",
                                     "2",
                                     "--heavy-workers",
                                     "1",
                                     "--heavy-queue",
                                     "1",
                                     "--demo",
                                     "--body-timeout-s",
                                     "9",
                                     "--idle-timeout-s",
                                     "3",
                                     "--max-connections",
                                     "50",
                                     "--spool-threshold-mb",
                                     "1",
                                     "--drain-timeout-s",
                                     "0"}),
                            {});
  ASSERT_TRUE(r.errors.empty()) << all(r.errors);
  const auto& s = r.settings;
  EXPECT_EQ(s.db_path, "d.sqlite");
  EXPECT_EQ(s.listen_port, 0);
  EXPECT_EQ(s.threads, 4u);
  EXPECT_DOUBLE_EQ(s.slow_threshold, 0.8);
  EXPECT_EQ(s.max_body_bytes, 8u << 20);
  EXPECT_EQ(s.github.api_base, "http://127.0.0.1:9");
  EXPECT_DOUBLE_EQ(s.github.min_mutation_interval_s, 0);
  EXPECT_EQ(s.github.max_attempts, 2);
  EXPECT_EQ(s.heavy_queue, 1u);
  EXPECT_TRUE(s.demo);
  EXPECT_EQ(s.limits.max_connections, 50u);
  EXPECT_DOUBLE_EQ(s.limits.drain_timeout_s, 0);
  EXPECT_FALSE(cli::parse_settings_flags({"--no-such-flag"}).ok());
  // An option is never the value of another: --listen does not take "--db" as its address.
  const auto taken = cli::parse_settings_flags({"--listen", "--db", "x.sqlite"});
  ASSERT_FALSE(taken.ok());
  EXPECT_NE(taken.error().message.find("--listen"), std::string::npos) << taken.error().message;
  // Bad values are refused with the flag's name.
  r = resolve_settings(args_of({"--listen", "nocolon", "--github-max-attempts", "0", "--threshold", "-1"}), {});
  const std::string text = all(r.errors);
  ASSERT_EQ(r.errors.size(), 3u) << text;
  EXPECT_NE(text.find("--listen: takes HOST:PORT"), std::string::npos) << text;
  EXPECT_NE(text.find("--github-max-attempts: must be between 1 and 1000, got 0"), std::string::npos) << text;
}

TEST(ConfigSecrets, FilesWithCredentialsDirectoryAndPrecedence) {
  TempDir dir;
  dir.write("github-token", "ghp_from_file\n");
  dir.write("webhook-secret", "whsec\r\n");
  const auto file = dir.write("p.toml",
                              "[github]\ntoken_file = \"${CREDENTIALS_DIRECTORY}/github-token\"\n"
                              "webhook_secret_file = \"${CREDENTIALS_DIRECTORY}/webhook-secret\"\n");
  const Env creds = {{"CREDENTIALS_DIRECTORY", dir.path().string()}};
  auto r = resolve_settings(args_of({"--config", file}), creds);
  ASSERT_TRUE(r.errors.empty()) << all(r.errors);
  EXPECT_EQ(r.settings.github.token, "ghp_from_file");
  EXPECT_EQ(r.settings.github.webhook_secret, "whsec");

  // Without CREDENTIALS_DIRECTORY, or with an unreadable file: refuse, naming the setting, never the secret.
  r = resolve_settings(args_of({"--config", file}), {});
  ASSERT_EQ(r.errors.size(), 2u) << all(r.errors);
  EXPECT_NE(all(r.errors).find("CREDENTIALS_DIRECTORY"), std::string::npos);
  r = resolve_settings(args_of({"--config", file}), {{"CREDENTIALS_DIRECTORY", "/nonexistent"}});
  ASSERT_EQ(r.errors.size(), 2u) << all(r.errors);
  EXPECT_NE(all(r.errors).find("cannot read '/nonexistent/github-token'"), std::string::npos) << all(r.errors);

  // The secret in the environment beats the file's token_file; a --github-token-file flag beats the environment.
  Env env = creds;
  env["PERFTRIAGE_GITHUB_TOKEN"] = "from-env";
  r = resolve_settings(args_of({"--config", file}), env);
  ASSERT_TRUE(r.errors.empty()) << all(r.errors);
  EXPECT_EQ(r.settings.github.token, "from-env");
  EXPECT_EQ(r.settings.github.token_file, "");
  const auto other = dir.write("other-token", "from-flag");
  r = resolve_settings(args_of({"--config", file, "--github-token-file", other}), env);
  ASSERT_TRUE(r.errors.empty()) << all(r.errors);
  EXPECT_EQ(r.settings.github.token, "from-flag");

  // Only ${CREDENTIALS_DIRECTORY} is expanded.
  Settings s;
  const auto errors = apply_toml("[github]\ntoken_file = \"${HOME}/t\"\n", "h.toml", s);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].message.find("only ${CREDENTIALS_DIRECTORY}"), std::string::npos);
  auto expanded = expand_path("${CREDENTIALS_DIRECTORY}/a", {{"CREDENTIALS_DIRECTORY", "/run/credentials/x"}});
  ASSERT_TRUE(expanded.ok());
  EXPECT_EQ(*expanded, "/run/credentials/x/a");
}

// A GitHub App: app_id with its key file, read as the other secrets are; not half of it, and not beside a token.
TEST(ConfigSecrets, AnAppNeedsItsKeyAndExcludesAToken) {
  TempDir dir;
  const auto key = dir.write("app.pem", "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n");
  auto r = resolve_settings(args_of({"--github-app-id", "4242", "--github-private-key-file", key}), {});
  ASSERT_TRUE(r.errors.empty()) << all(r.errors);
  EXPECT_TRUE(r.settings.github.app());
  EXPECT_FALSE(r.settings.github.dry_run());
  EXPECT_EQ(r.settings.github.private_key.rfind("-----BEGIN PRIVATE KEY-----", 0), 0u);

  r = resolve_settings(args_of({"--github-app-id", "4242"}), {});
  ASSERT_EQ(r.errors.size(), 1u) << all(r.errors);
  EXPECT_NE(all(r.errors).find("app_id and private_key_file go together"), std::string::npos) << all(r.errors);
  r = resolve_settings(args_of({"--github-app-id", "4242", "--github-private-key-file", key}),
                       {{"PERFTRIAGE_GITHUB_TOKEN", "ghp_x"}});
  ASSERT_EQ(r.errors.size(), 1u) << all(r.errors);
  EXPECT_NE(all(r.errors).find("a GitHub App and a token are both set"), std::string::npos) << all(r.errors);
  r = resolve_settings(args_of({"--github-app-id", "42/../x"}), {});
  EXPECT_NE(all(r.errors).find("an App ID (digits) or client ID"), std::string::npos) << all(r.errors);
  EXPECT_TRUE(Settings{}.github.dry_run());
}

TEST(ConfigShow, SecretsAreMasked) {
  Settings s;
  s.github.token = "ghp_secret_value";
  s.github.token_file = "/run/credentials/perftriage.service/github-token";
  const auto j = effective_settings(s);
  EXPECT_EQ(j["github"]["token"], "***");
  EXPECT_EQ(j["github"]["webhook_secret"], "");
  EXPECT_EQ(j["github"]["token_file"], "/run/credentials/perftriage.service/github-token");
  EXPECT_EQ(j["server"]["listen"], "127.0.0.1:8080");
  EXPECT_EQ(j["limits"]["max_body_mb"], 256);
  for (const auto& o : options()) EXPECT_TRUE(j[std::string(o.section)].contains(std::string(o.key))) << o.name();
  const std::string dumped = j.dump();
  EXPECT_EQ(dumped.find("ghp_secret_value"), std::string::npos);
  const std::string text = effective_toml(s, {{"github.token", "PERFTRIAGE_GITHUB_TOKEN"}});
  EXPECT_EQ(text.find("ghp_secret_value"), std::string::npos);
  EXPECT_NE(text.find("# token: *** (from PERFTRIAGE_GITHUB_TOKEN)"), std::string::npos) << text;
  EXPECT_NE(text.find("# webhook secret: (not set)"), std::string::npos) << text;
  // What `config show` prints is itself a valid config file that gives the same settings.
  Settings again;
  const auto errors = apply_toml(text, "show.toml", again);
  ASSERT_TRUE(errors.empty()) << all(errors) << text;
  EXPECT_EQ(effective_settings(again)["server"], j["server"]);
  EXPECT_EQ(effective_settings(again)["limits"], j["limits"]);
}

// docs/config.md holds `perftriage config keys` exactly: a key added to the table without its
// documentation fails.
TEST(ConfigDocs, DocsListEveryKeyOfTheTable) {
  for (const char* file : {"docs/config.md"}) {
    const std::string doc = read(std::filesystem::path(PERFTRIAGE_SOURCE_DIR) / file);
    ASSERT_FALSE(doc.empty()) << file << " is missing";
    EXPECT_NE(doc.find(keys_markdown()), std::string::npos)
        << file << " does not hold the table of `perftriage config keys`; paste this:\n"
        << keys_markdown();
  }
}

// The settings docs/github.md tells a maintainer to write are read without a mistake: its TOML blocks, as written.
TEST(ConfigDocs, TheGithubGuidesSettingsAreValid) {
  const std::string doc = read(std::filesystem::path(PERFTRIAGE_SOURCE_DIR) / "docs" / "github.md");
  ASSERT_FALSE(doc.empty());
  int blocks = 0;
  for (std::size_t at = doc.find("```toml\n"); at != std::string::npos; at = doc.find("```toml\n", at)) {
    const auto start = at + 8;
    const auto end = doc.find("```", start);
    ASSERT_NE(end, std::string::npos);
    Settings s;
    const auto errors = apply_toml(doc.substr(start, end - start), "docs/github.md", s);
    EXPECT_TRUE(errors.empty()) << "block " << blocks << ": " << all(errors);
    ++blocks;
    at = end + 3;
  }
  EXPECT_GE(blocks, 2);  // the App's settings and the repositories' list
}

// deploy/perftriage.toml has every key, at its default except where a deployment must differ, and nothing else.
TEST(ConfigDocs, ExampleConfigHasEveryKeyAtItsDefault) {
  const auto path = std::filesystem::path(PERFTRIAGE_SOURCE_DIR) / "deploy" / "perftriage.toml";
  const std::string text = read(path);
  ASSERT_FALSE(text.empty()) << path << " is missing";
  Settings example;
  Sources sources;
  const auto errors = apply_toml(text, path.string(), example, &sources);
  ASSERT_TRUE(errors.empty()) << all(errors);
  const Settings defaults;
  const std::set<std::string> deployment = {"database.path", "github.token_file", "github.webhook_secret_file"};
  for (const auto& o : options()) {
    EXPECT_TRUE(sources.count(o.name())) << o.name() << " is not in deploy/perftriage.toml";
    if (deployment.count(o.name())) continue;
    EXPECT_EQ(toml_literal(o.get(example)), toml_literal(o.get(defaults))) << o.name() << " is not its default";
  }
  EXPECT_EQ(example.github.token_file, "${CREDENTIALS_DIRECTORY}/github-token");
  EXPECT_EQ(example.github.webhook_secret_file, "${CREDENTIALS_DIRECTORY}/webhook-secret");
}

// Every command finds the database the same way: a flag, else PERFTRIAGE_DATABASE_PATH, else the short
// PERFTRIAGE_DB, else var/perftriage.sqlite; serve's environment layer reads the same two variables.
TEST(ConfigResolve, TheDatabaseFromTheEnvironment) {
  EXPECT_EQ(default_db_path({}), "var/perftriage.sqlite");
  EXPECT_EQ(default_db_path({{"PERFTRIAGE_DB", "short.sqlite"}}), "short.sqlite");
  EXPECT_EQ(default_db_path({{"PERFTRIAGE_DB", "short.sqlite"}, {"PERFTRIAGE_DATABASE_PATH", "long.sqlite"}}),
            "long.sqlite");
  auto r = resolve_settings({}, {{"PERFTRIAGE_DB", "short.sqlite"}});
  ASSERT_TRUE(r.errors.empty()) << all(r.errors);
  EXPECT_EQ(r.settings.db_path, "short.sqlite");
  EXPECT_EQ(r.sources.at("database.path"), "PERFTRIAGE_DB");
  r = resolve_settings({}, {{"PERFTRIAGE_DB", "short.sqlite"}, {"PERFTRIAGE_DATABASE_PATH", "long.sqlite"}});
  EXPECT_EQ(r.settings.db_path, "long.sqlite");
  r = resolve_settings(args_of({"--db", "flag.sqlite"}), {{"PERFTRIAGE_DB", "short.sqlite"}});
  EXPECT_EQ(r.settings.db_path, "flag.sqlite");
}

}  // namespace
}  // namespace perftriage::server::config
