#include "server/app/config.hpp"

#include "analyzers/labeler/labeler.hpp"
#include "analyzers/labeler/model.hpp"
#include "analyzers/labeler/taxonomy.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <functional>

#include <toml++/toml.h>  // Debian builds libtomlplusplus with exceptions: parse errors are toml::parse_error

#include "common/strings.hpp"
#include "server/app/label_evidence.hpp"

extern char** environ;  // NOLINT: POSIX

namespace perftriage::server::config {
namespace {

const std::string& text(const Value& v) { return std::get<std::string>(v); }
bool boolean(const Value& v) { return std::get<bool>(v); }
std::int64_t integer(const Value& v) { return std::get<std::int64_t>(v); }
double number(const Value& v) { return std::get<double>(v); }
const std::vector<std::string>& list(const Value& v) { return std::get<std::vector<std::string>>(v); }

Value int_value(std::uint64_t v) { return static_cast<std::int64_t>(v); }
Value mib(std::size_t bytes) { return static_cast<std::int64_t>(bytes >> 20); }
std::size_t from_mib(const Value& v) { return static_cast<std::size_t>(integer(v)) << 20; }

// HOST:PORT, with [v6] brackets around a host holding colons.
std::optional<std::pair<std::string, unsigned short>> split_listen(std::string_view s) {
  const auto colon = s.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string host(s.substr(0, colon));
  const std::string_view port_text = s.substr(colon + 1);
  unsigned port = 0;
  const auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || ptr != port_text.data() + port_text.size() || port > 65535) {
    return std::nullopt;
  }
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty() || host.find_first_of("[] \t") != std::string::npos) return std::nullopt;
  return std::pair{host, static_cast<unsigned short>(port)};
}

std::string check_listen(const Value& v) {
  return split_listen(text(v)) ? "" : "takes HOST:PORT (port 0 to 65535; [::1]:8080 for IPv6), got '" + text(v) + "'";
}
std::string check_not_empty(const Value& v) { return text(v).empty() ? "must not be empty" : ""; }
std::string check_read_access(const Value& v) {
  return text(v) == "public" || text(v) == "token" ? "" : "must be \"public\" or \"token\", got '" + text(v) + "'";
}
std::string check_http_url(const Value& v) {
  const std::string& s = text(v);
  const bool ok = (s.rfind("https://", 0) == 0 && s.size() > 8) || (s.rfind("http://", 0) == 0 && s.size() > 7);
  return ok ? "" : "must be an http:// or https:// URL, got '" + s + "'";
}
std::string check_http_urls(const Value& v) {
  for (const auto& u : list(v)) {
    if (auto why = check_http_url(Value(u)); !why.empty()) return why;
  }
  return {};
}
// An origin is scheme://host[:port], exactly as a browser sends it in the Origin header: no path, no slash at the end.
std::string check_origins(const Value& v) {
  for (const auto& o : list(v)) {
    std::string_view rest = o;
    if (rest.rfind("https://", 0) == 0) {
      rest.remove_prefix(8);
    } else if (rest.rfind("http://", 0) == 0) {
      rest.remove_prefix(7);
    } else {
      return "each origin must be http(s)://HOST[:PORT], got '" + o + "'";
    }
    if (rest.empty() || rest.find_first_of("/ \t?#") != std::string_view::npos) {
      return "each origin must be http(s)://HOST[:PORT] with no path, got '" + o + "'";
    }
  }
  return "";
}
std::string check_tags(const Value& v) {
  for (const auto& t : list(v)) {
    if (t.empty()) return "tags must not be empty";
  }
  return "";
}
std::string check_label_model(const Value& v) {
  const std::string s(text(v));
  if (s.empty() || s == "none") return "";
  auto m = analyzers::labeler::load_model(s);
  return m ? "" : "is not a label model: " + m.error().message;
}
std::string check_label_layers(const Value& v) {
  return analyzers::labeler::layers_from_name(text(v)) ? "" : "must be " + analyzers::labeler::layers_names_text();
}
constexpr std::string_view kCredentials = "${CREDENTIALS_DIRECTORY}";
std::string check_app_id(const Value& v) {
  const auto& id = text(v);
  const bool ok = std::all_of(id.begin(), id.end(), [](unsigned char c) { return std::isalnum(c) || c == '.'; });
  return ok ? "" : "an App ID (digits) or client ID (Iv1.…), got '" + id + "'";
}
std::string check_secret_path(const Value& v) {
  std::string_view s = text(v);
  for (auto at = s.find("${"); at != std::string_view::npos; at = s.find("${", at + 2)) {
    if (s.substr(at, kCredentials.size()) != kCredentials) {
      return "only ${CREDENTIALS_DIRECTORY} is expanded in a path, got '" + std::string(s) + "'";
    }
  }
  return "";
}

// Designated initializers leave out what an option does not have (a flag, a range, a check); GCC 12's
// -Wmissing-field-initializers warns about every omitted member even though each has a default.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
// one piece: the table of every setting, one entry each, read top to bottom like deploy/perftriage.toml.
// The table. Each line: where the setting lives (TOML, environment, flag), its kind and range, and how it maps onto
// Settings. Units are in the key (…_mb, …_kb, …_s, …_ms, …_days); Settings holds bytes and seconds.
const std::vector<Option>& table() {
  // clang-format off
  static const std::vector<Option> kOptions = {
      // [server]
      {.section = "server", .key = "listen", .flag = "listen", .kind = Kind::text,
       .meaning = "address and port to listen on (port 0 = any free port; the chosen one is printed)",
       .set = [](Settings& s, const Value& v) {
         auto hp = split_listen(text(v));
         s.listen_host = hp->first;
         s.listen_port = hp->second;
       },
       .get = [](const Settings& s) -> Value {
         const bool v6 = s.listen_host.find(':') != std::string::npos;
         return (v6 ? "[" + s.listen_host + "]" : s.listen_host) + ":" + std::to_string(s.listen_port);
       },
       .check = check_listen},
      {.section = "server", .key = "public_url", .flag = "public-url", .kind = Kind::text,
       .meaning = "the dashboard's address as people reach it; links the bot posts to GitHub use it (\"\" = none)",
       .set = [](Settings& s, const Value& v) { s.public_url = text(v); },
       .get = [](const Settings& s) -> Value { return s.public_url; },
       .check = [](const Value& v) { return text(v).empty() ? std::string() : check_http_url(v); }},
      {.section = "server", .key = "threads", .flag = "threads", .kind = Kind::integer, .min = 0, .max = 1024,
       .meaning = "I/O threads (sockets only); 0 = one per CPU core, at least 2",
       .set = [](Settings& s, const Value& v) { s.threads = static_cast<unsigned>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.threads); }},
      {.section = "server", .key = "read_access", .flag = "read-access", .kind = Kind::text,
       .meaning = "\"public\": reads need no token; \"token\": every /api/v1 read needs a token with scope read",
       .set = [](Settings& s, const Value& v) { s.auth.read_access = text(v); },
       .get = [](const Settings& s) -> Value { return s.auth.read_access; },
       .check = check_read_access},
      {.section = "server", .key = "cors_origins", .kind = Kind::list,
       .meaning = "origins allowed to call the API from a browser (http(s)://HOST[:PORT]); empty = CORS off",
       .set = [](Settings& s, const Value& v) { s.auth.cors_origins = list(v); },
       .get = [](const Settings& s) -> Value { return s.auth.cors_origins; },
       .check = check_origins},
      {.section = "server", .key = "web_dir", .flag = "web-dir", .kind = Kind::text,
       .meaning = "the dashboard's files; \"\" = the installed or built-in web/ directory",
       .set = [](Settings& s, const Value& v) { s.web_dir = text(v); },
       .get = [](const Settings& s) -> Value { return s.web_dir; }},
      {.section = "server", .key = "read_workers", .flag = "read-workers", .kind = Kind::integer, .min = 1, .max = 256,
       .meaning = "threads answering database reads",
       .set = [](Settings& s, const Value& v) { s.read_workers = static_cast<unsigned>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.read_workers); }},
      {.section = "server", .key = "read_queue", .flag = "read-queue", .kind = Kind::integer, .min = 1, .max = 100000,
       .meaning = "reads waiting for a worker; past it 503 queue_full with Retry-After",
       .set = [](Settings& s, const Value& v) { s.read_queue = static_cast<std::size_t>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.read_queue); }},
      {.section = "server", .key = "heavy_workers", .flag = "heavy-workers", .kind = Kind::integer, .min = 1,
       .max = 256, .meaning = "threads for uploads, artifacts, webhooks, triage and tracking issues",
       .set = [](Settings& s, const Value& v) { s.heavy_workers = static_cast<unsigned>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.heavy_workers); }},
      {.section = "server", .key = "heavy_queue", .flag = "heavy-queue", .kind = Kind::integer, .min = 1,
       .max = 100000, .meaning = "heavy requests waiting for a worker; past it 503 queue_full",
       .set = [](Settings& s, const Value& v) { s.heavy_queue = static_cast<std::size_t>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.heavy_queue); }},
      {.section = "server", .key = "compute_workers", .flag = "compute-workers", .kind = Kind::integer, .min = 1,
       .max = 256, .meaning = "threads for classify and label (any reader's CPU-heavy work), below the heavy pool's priority",
       .set = [](Settings& s, const Value& v) { s.compute_workers = static_cast<unsigned>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.compute_workers); }},
      {.section = "server", .key = "compute_queue", .flag = "compute-queue", .kind = Kind::integer, .min = 1,
       .max = 100000, .meaning = "classify and label requests waiting for a worker; past it 503 queue_full",
       .set = [](Settings& s, const Value& v) { s.compute_queue = static_cast<std::size_t>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.compute_queue); }},
      {.section = "server", .key = "compute_per_client", .flag = "compute-per-client", .kind = Kind::integer,
       .min = 1, .max = 100000,
       .meaning = "classify and label requests one client (its token, else its address) may have waiting or running; "
                  "past it 429 with Retry-After",
       .set = [](Settings& s, const Value& v) { s.compute_per_client = static_cast<std::size_t>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.compute_per_client); }},
      {.section = "server", .key = "compute_access", .flag = "compute-access", .kind = Kind::text,
       .meaning = "classify and label: \"public\" = as read_access says; \"token\" = a token with scope read, even "
                  "when reads are public",
       .set = [](Settings& s, const Value& v) { s.auth.compute_access = text(v); },
       .get = [](const Settings& s) -> Value { return s.auth.compute_access; },
       .check = check_read_access},
      {.section = "server", .key = "slow_threshold", .flag = "threshold", .kind = Kind::number, .min = 0,
       .max = 1000, .min_exclusive = true,
       .meaning = "a case is slow when 0 < speedup < this; the default of the threshold query parameter",
       .set = [](Settings& s, const Value& v) { s.slow_threshold = number(v); },
       .get = [](const Settings& s) -> Value { return s.slow_threshold; }},
      {.section = "server", .key = "integrity_check", .flag = "integrity-check", .kind = Kind::boolean,
       .meaning = "run PRAGMA integrity_check at start-up and refuse to start on a damaged database",
       .set = [](Settings& s, const Value& v) { s.integrity_check = boolean(v); },
       .get = [](const Settings& s) -> Value { return s.integrity_check; }},
      {.section = "server", .key = "demo", .flag = "demo", .kind = Kind::boolean,
       .meaning = "load the demo data (refused on a database with other runs); never talks to GitHub",
       .set = [](Settings& s, const Value& v) { s.demo = boolean(v); },
       .get = [](const Settings& s) -> Value { return s.demo; }},
      {.section = "server", .key = "access_log", .kind = Kind::boolean,
       .meaning = "one JSON line per request on stderr, written before the answer leaves",
       .set = [](Settings& s, const Value& v) { s.access_log.enabled = boolean(v); },
       .get = [](const Settings& s) -> Value { return s.access_log.enabled; }},
      {.section = "server", .key = "access_log_sample", .kind = Kind::number, .min = 0, .max = 1,
       .meaning = "the share of answers below 400 the access log writes (every 4xx and 5xx is written); the rest are "
                  "counted in perftriage_access_log_skipped_total",
       .set = [](Settings& s, const Value& v) { s.access_log.sample = number(v); },
       .get = [](const Settings& s) -> Value { return s.access_log.sample; }},
      {.section = "server", .key = "access_log_max_per_s", .kind = Kind::integer, .min = 0, .max = 10000000,
       .meaning = "access-log lines written in one second at most (errors included); 0 = no cap; the rest are counted "
                  "in perftriage_access_log_skipped_total",
       .set = [](Settings& s, const Value& v) { s.access_log.max_lines_per_s = static_cast<std::size_t>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.access_log.max_lines_per_s); }},
      // [database]
      {.section = "database", .key = "path", .flag = "db", .kind = Kind::text,
       .meaning = "the SQLite database file (created, with its directory, when missing), or a postgresql:// URL",
       .set = [](Settings& s, const Value& v) { s.db_path = text(v); },
       .get = [](const Settings& s) -> Value { return s.db_path; },
       .check = check_not_empty},
      // [limits]
      {.section = "limits", .key = "max_body_mb", .flag = "max-body-mb", .kind = Kind::integer, .min = 1,
       .max = 1 << 20, .meaning = "largest upload, artifact or classify body, in MiB (413 past it, from the header)",
       .set = [](Settings& s, const Value& v) { s.max_body_bytes = from_mib(v); },
       .get = [](const Settings& s) { return mib(s.max_body_bytes); }},
      {.section = "limits", .key = "max_header_kb", .kind = Kind::integer, .min = 1, .max = 1024,
       .meaning = "largest request line and headers, in KiB",
       .set = [](Settings& s, const Value& v) { s.max_header_bytes = static_cast<std::size_t>(integer(v)) << 10; },
       .get = [](const Settings& s) { return int_value(s.max_header_bytes >> 10); }},
      {.section = "limits", .key = "header_timeout_s", .flag = "header-timeout-s", .kind = Kind::number, .min = 0,
       .max = 3600, .min_exclusive = true, .meaning = "the request line and headers must arrive within this (408)",
       .set = [](Settings& s, const Value& v) { s.limits.header_timeout_s = number(v); },
       .get = [](const Settings& s) -> Value { return s.limits.header_timeout_s; }},
      {.section = "limits", .key = "body_timeout_s", .flag = "body-timeout-s", .kind = Kind::number, .min = 0,
       .max = 86400, .min_exclusive = true, .meaning = "the whole body must arrive within this (408)",
       .set = [](Settings& s, const Value& v) { s.limits.body_timeout_s = number(v); },
       .get = [](const Settings& s) -> Value { return s.limits.body_timeout_s; }},
      {.section = "limits", .key = "idle_timeout_s", .flag = "idle-timeout-s", .kind = Kind::number, .min = 0,
       .max = 86400, .min_exclusive = true, .meaning = "a kept-alive connection with no new request is closed",
       .set = [](Settings& s, const Value& v) { s.limits.idle_timeout_s = number(v); },
       .get = [](const Settings& s) -> Value { return s.limits.idle_timeout_s; }},
      {.section = "limits", .key = "write_timeout_s", .kind = Kind::number, .min = 0, .max = 86400,
       .min_exclusive = true, .meaning = "a response the client does not read within this is dropped",
       .set = [](Settings& s, const Value& v) { s.limits.write_timeout_s = number(v); },
       .get = [](const Settings& s) -> Value { return s.limits.write_timeout_s; }},
      {.section = "limits", .key = "max_connections", .flag = "max-connections", .kind = Kind::integer, .min = 1,
       .max = 1000000, .meaning = "open connections; past it new ones are answered 503 and closed",
       .set = [](Settings& s, const Value& v) { s.limits.max_connections = static_cast<std::size_t>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.limits.max_connections); }},
      {.section = "limits", .key = "spool_threshold_mb", .flag = "spool-threshold-mb", .kind = Kind::integer,
       .min = 0, .max = 1 << 20, .meaning = "bodies larger than this (MiB) go to a temporary file instead of memory",
       .set = [](Settings& s, const Value& v) { s.limits.spool_threshold_bytes = from_mib(v); },
       .get = [](const Settings& s) { return mib(s.limits.spool_threshold_bytes); }},
      {.section = "limits", .key = "spool_dir", .kind = Kind::text,
       .meaning = "where spooled bodies go; \"\" = $TMPDIR or /tmp",
       .set = [](Settings& s, const Value& v) { s.limits.spool_dir = text(v); },
       .get = [](const Settings& s) -> Value { return s.limits.spool_dir; }},
      {.section = "limits", .key = "drain_timeout_s", .flag = "drain-timeout-s", .kind = Kind::number, .min = 0,
       .max = 3600, .meaning = "on SIGTERM, in-flight requests get this long to finish",
       .set = [](Settings& s, const Value& v) { s.limits.drain_timeout_s = number(v); },
       .get = [](const Settings& s) -> Value { return s.limits.drain_timeout_s; }},
      {.section = "limits", .key = "max_archive_entries", .kind = Kind::integer, .min = 1, .max = 10000000,
       .meaning = "members of one zip / tar upload (413 past it)",
       .set = [](Settings& s, const Value& v) { s.unpack.max_entries = static_cast<std::size_t>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.unpack.max_entries); }},
      {.section = "limits", .key = "max_multipart_parts", .kind = Kind::integer, .min = 1, .max = 1000000,
       .meaning = "parts of one multipart/form-data upload (413 too_many_parts past it)",
       .set = [](Settings& s, const Value& v) { s.unpack.max_parts = static_cast<std::size_t>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.unpack.max_parts); }},
      {.section = "limits", .key = "max_archive_entry_mb", .kind = Kind::integer, .min = 1, .max = 1 << 20,
       .meaning = "one uncompressed archive member, in MiB",
       .set = [](Settings& s, const Value& v) { s.unpack.max_entry_bytes = from_mib(v); },
       .get = [](const Settings& s) { return mib(s.unpack.max_entry_bytes); }},
      {.section = "limits", .key = "max_archive_total_mb", .kind = Kind::integer, .min = 1, .max = 1 << 20,
       .meaning = "all uncompressed members of one archive together, in MiB (zip bombs stop here)",
       .set = [](Settings& s, const Value& v) { s.unpack.max_total_bytes = from_mib(v); },
       .get = [](const Settings& s) { return mib(s.unpack.max_total_bytes); }},
      {.section = "limits", .key = "max_archive_ratio", .kind = Kind::integer, .min = 0, .max = 1000000,
       .meaning = "past archive_ratio_floor_mb unpacked, at most this many bytes out per archive byte read; 0 = off",
       .set = [](Settings& s, const Value& v) { s.unpack.max_ratio = static_cast<std::size_t>(integer(v)); },
       .get = [](const Settings& s) { return int_value(s.unpack.max_ratio); }},
      {.section = "limits", .key = "archive_ratio_floor_mb", .kind = Kind::integer, .min = 0, .max = 1 << 20,
       .meaning = "unpacked MiB below which max_archive_ratio is not checked",
       .set = [](Settings& s, const Value& v) { s.unpack.ratio_floor_bytes = from_mib(v); },
       .get = [](const Settings& s) { return mib(s.unpack.ratio_floor_bytes); }},
      // [github]
      {.section = "github", .key = "api", .flag = "github-api", .kind = Kind::text,
       .meaning = "GitHub's REST API; GitHub Enterprise Server: https://HOST/api/v3",
       .set = [](Settings& s, const Value& v) { s.github.api_base = text(v); },
       .get = [](const Settings& s) -> Value { return s.github.api_base; },
       .check = check_http_url},
      {.section = "github", .key = "token_file", .flag = "github-token-file", .kind = Kind::text,
       .meaning = "file holding the bot's token; \"\" = PERFTRIAGE_GITHUB_TOKEN, or none: dry run, nothing sent",
       .set = [](Settings& s, const Value& v) { s.github.token_file = text(v); },
       .get = [](const Settings& s) -> Value { return s.github.token_file; },
       .check = check_secret_path},
      {.section = "github", .key = "webhook_secret_file", .flag = "webhook-secret-file", .kind = Kind::text,
       .meaning = "file holding the webhook HMAC secret; \"\" = PERFTRIAGE_WEBHOOK_SECRET, or none: webhooks get 401",
       .set = [](Settings& s, const Value& v) { s.github.webhook_secret_file = text(v); },
       .get = [](const Settings& s) -> Value { return s.github.webhook_secret_file; },
       .check = check_secret_path},
      {.section = "github", .key = "app_id", .flag = "github-app-id", .kind = Kind::text,
       .meaning = "act as this GitHub App (its App ID or client ID) instead of with a token; needs private_key_file",
       .set = [](Settings& s, const Value& v) { s.github.app_id = text(v); },
       .get = [](const Settings& s) -> Value { return s.github.app_id; },
       .check = check_app_id},
      {.section = "github", .key = "private_key_file", .flag = "github-private-key-file", .kind = Kind::text,
       .meaning = "file holding the App's private key (PEM), for app_id",
       .set = [](Settings& s, const Value& v) { s.github.private_key_file = text(v); },
       .get = [](const Settings& s) -> Value { return s.github.private_key_file; },
       .check = check_secret_path},
      {.section = "github", .key = "bot_login", .flag = "bot-login", .kind = Kind::text,
       .meaning = "the bot's login; events it caused are ignored",
       .set = [](Settings& s, const Value& v) { s.github.bot_login = text(v); },
       .get = [](const Settings& s) -> Value { return s.github.bot_login; },
       .check = check_not_empty},
      {.section = "github", .key = "taxonomy", .flag = "bot-taxonomy", .kind = Kind::text,
       .meaning = "the labeler taxonomy the bot applies",
       .set = [](Settings& s, const Value& v) { s.github.taxonomy = text(v); },
       .get = [](const Settings& s) -> Value { return s.github.taxonomy; },
       .check = check_not_empty},
      {.section = "github", .key = "label_model", .flag = "bot-label-model", .kind = Kind::text,
       .meaning = "the labeler's learned layer: \"\" = the taxonomy's own, \"none\" = rules only, or a model file",
       .set = [](Settings& s, const Value& v) { s.github.label_model = text(v); },
       .get = [](const Settings& s) -> Value { return s.github.label_model; },
       .check = check_label_model},
      {.section = "github", .key = "label_layers", .flag = "bot-label-layers", .kind = Kind::text,
       .meaning = "the labeler's layers the bot applies: both, gated (both, then the tracker's gates), tiered (both, "
                  "applied only where the calibrated probability reaches apply_at, the rest suggested), rules or model",
       .set = [](Settings& s, const Value& v) { s.github.label_layers = text(v); },
       .get = [](const Settings& s) -> Value { return s.github.label_layers; },
       .check = check_label_layers},
      {.section = "github", .key = "retrain_corrections", .flag = "bot-retrain-corrections", .kind = Kind::integer,
       .min = 0, .max = 1000000,
       .meaning = "serve retrains a repository's labeler once maintainers corrected its labels this many times since "
                  "it last learned (0 = never)",
       .set = [](Settings& s, const Value& v) { s.github.retrain_corrections = integer(v); },
       .get = [](const Settings& s) -> Value { return s.github.retrain_corrections; }},
      {.section = "github", .key = "retrain_check_s", .flag = "bot-retrain-check-s", .kind = Kind::number, .min = 0.1,
       .max = 604800, .meaning = "how often serve looks whether a labeler is due for retraining",
       .set = [](Settings& s, const Value& v) { s.github.retrain_check_s = number(v); },
       .get = [](const Settings& s) -> Value { return s.github.retrain_check_s; }},
      {.section = "github", .key = "min_interval_ms", .flag = "github-min-interval-ms", .kind = Kind::integer,
       .min = 0, .max = 3600000, .meaning = "at least this long between two mutations sent to GitHub",
       .set = [](Settings& s, const Value& v) { s.github.min_mutation_interval_s = static_cast<double>(integer(v)) / 1000.0; },
       .get = [](const Settings& s) -> Value {
         return static_cast<std::int64_t>(std::llround(s.github.min_mutation_interval_s * 1000.0));
       }},
      {.section = "github", .key = "timeout_ms", .flag = "github-timeout-ms", .kind = Kind::integer, .min = 0,
       .max = 3600000, .meaning = "a request to GitHub hanging longer is retried",
       .set = [](Settings& s, const Value& v) { s.github.request_timeout_ms = static_cast<long>(integer(v)); },
       .get = [](const Settings& s) -> Value { return static_cast<std::int64_t>(s.github.request_timeout_ms); }},
      {.section = "github", .key = "backoff_ms", .flag = "github-backoff-ms", .kind = Kind::integer, .min = 0,
       .max = 3600000, .meaning = "retries wait this * 2^(attempts-1), at most 15 minutes",
       .set = [](Settings& s, const Value& v) { s.github.backoff_base_ms = static_cast<long>(integer(v)); },
       .get = [](const Settings& s) -> Value { return static_cast<std::int64_t>(s.github.backoff_base_ms); }},
      {.section = "github", .key = "max_attempts", .flag = "github-max-attempts", .kind = Kind::integer, .min = 1,
       .max = 1000, .meaning = "then the outbox action is marked failed (GET /api/v1/outbox?state=failed)",
       .set = [](Settings& s, const Value& v) { s.github.max_attempts = static_cast<int>(integer(v)); },
       .get = [](const Settings& s) -> Value { return static_cast<std::int64_t>(s.github.max_attempts); }},
      {.section = "github", .key = "claim_lease_ms", .flag = "github-claim-lease-ms", .kind = Kind::integer,
       .min = 1000, .max = 86400000,
       .meaning = "PostgreSQL: a replica's claim on an outbox action; a killed replica's action is re-sent after this",
       .set = [](Settings& s, const Value& v) { s.github.claim_lease_ms = static_cast<long>(integer(v)); },
       .get = [](const Settings& s) -> Value { return static_cast<std::int64_t>(s.github.claim_lease_ms); }},
      // [retention]
      {.section = "retention", .key = "interval_s", .kind = Kind::number, .min = 0, .max = 2592000,
       .min_exclusive = true, .meaning = "how often the retention task runs",
       .set = [](Settings& s, const Value& v) { s.retention.interval_s = number(v); },
       .get = [](const Settings& s) -> Value { return s.retention.interval_s; }},
      {.section = "retention", .key = "raw_files_days", .kind = Kind::integer, .min = 0, .max = 36500,
       .meaning = "drop the raw bytes of uploaded files older than this (parsed rows stay); 0 = keep forever",
       .set = [](Settings& s, const Value& v) { s.retention.raw_files_days = static_cast<int>(integer(v)); },
       .get = [](const Settings& s) -> Value { return static_cast<std::int64_t>(s.retention.raw_files_days); }},
      {.section = "retention", .key = "nightly_runs_days", .kind = Kind::integer, .min = 0, .max = 36500,
       .meaning = "delete runs older than this unless they carry a kept tag; 0 = keep forever",
       .set = [](Settings& s, const Value& v) { s.retention.nightly_runs_days = static_cast<int>(integer(v)); },
       .get = [](const Settings& s) -> Value { return static_cast<std::int64_t>(s.retention.nightly_runs_days); }},
      {.section = "retention", .key = "keep_tags", .kind = Kind::list,
       .meaning = "runs with a tag starting with one of these are never deleted",
       .set = [](Settings& s, const Value& v) { s.retention.keep_tags = list(v); },
       .get = [](const Settings& s) -> Value { return s.retention.keep_tags; },
       .check = check_tags},
      {.section = "retention", .key = "webhook_deliveries_days", .kind = Kind::integer, .min = 0, .max = 36500,
       .meaning = "delete finished webhook deliveries older than this; 0 = keep forever",
       .set = [](Settings& s, const Value& v) { s.retention.webhook_deliveries_days = static_cast<int>(integer(v)); },
       .get = [](const Settings& s) -> Value { return static_cast<std::int64_t>(s.retention.webhook_deliveries_days); }},
      {.section = "retention", .key = "sent_outbox_days", .kind = Kind::integer, .min = 0, .max = 36500,
       .meaning = "delete outbox rows sent (or dry_run) longer ago than this; 0 = keep forever",
       .set = [](Settings& s, const Value& v) { s.retention.sent_outbox_days = static_cast<int>(integer(v)); },
       .get = [](const Settings& s) -> Value { return static_cast<std::int64_t>(s.retention.sent_outbox_days); }},
      // [notify]
      {.section = "notify", .key = "urls", .kind = Kind::list,
       .meaning = "POST a signed JSON note here when a tracking issue opens, gains cases or closes; [] = none",
       .set = [](Settings& s, const Value& v) { s.notify.urls = list(v); },
       .get = [](const Settings& s) -> Value { return s.notify.urls; },
       .check = check_http_urls},
      {.section = "notify", .key = "secret_file", .kind = Kind::text,
       .meaning = "file holding the HMAC-SHA256 key of X-Perftriage-Signature-256; \"\" = unsigned",
       .set = [](Settings& s, const Value& v) { s.notify.secret_file = text(v); },
       .get = [](const Settings& s) -> Value { return s.notify.secret_file; },
       .check = check_secret_path},
      // [cache]
      {.section = "cache", .key = "max_mb", .flag = "cache-mb", .kind = Kind::integer, .min = 0, .max = 1 << 20,
       .meaning = "memory for cached GET answers, in MiB, each kept until a write changes what it read; 0 = no cache",
       .set = [](Settings& s, const Value& v) { s.cache.max_bytes = from_mib(v); },
       .get = [](const Settings& s) { return mib(s.cache.max_bytes); }},
  };
  // clang-format on
  return kOptions;
}
#pragma GCC diagnostic pop

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::text: return "a string";
    case Kind::boolean: return "a boolean (true or false)";
    case Kind::integer: return "an integer";
    case Kind::number: return "a number";
    case Kind::list: return "an array of strings";
  }
  return "?";
}

std::string_view node_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::none: return "nothing";
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a floating-point number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
  }
  return "?";
}

std::string format_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.1f}", v);
  return fmt::format("{}", v);
}

// The range rule as words: "between 1 and 256", "> 0 and <= 3600".
std::string range_words(const Option& o) {
  auto n = [&](double v) {
    return o.kind == Kind::integer ? std::to_string(static_cast<std::int64_t>(v)) : fmt::format("{}", v);
  };
  if (o.min_exclusive) return "> " + n(o.min) + " and <= " + n(o.max);
  return "between " + n(o.min) + " and " + n(o.max);
}

// "" when `v` (of the option's kind) is acceptable, else why not.
std::string validate(const Option& o, const Value& v) {
  if (o.kind == Kind::integer) {
    const auto x = integer(v);
    if (static_cast<double>(x) < o.min || static_cast<double>(x) > o.max) {
      return "must be " + range_words(o) + ", got " + std::to_string(x);
    }
  } else if (o.kind == Kind::number) {
    const double x = number(v);
    if (!std::isfinite(x) || x < o.min || x > o.max || (o.min_exclusive && x <= o.min)) {
      return "must be " + range_words(o) + ", got " + fmt::format("{}", x);
    }
  }
  return o.check ? o.check(v) : "";
}

// A value from the environment or a flag: booleans true/false/1/0/yes/no/on/off, lists comma-separated.
std::optional<Value> from_text(const Option& o, std::string_view s, std::string& why) {
  switch (o.kind) {
    case Kind::text: return Value(std::string(s));
    case Kind::boolean: {
      const std::string l = lower(trim(s));
      if (l == "true" || l == "1" || l == "yes" || l == "on") return Value(true);
      if (l == "false" || l == "0" || l == "no" || l == "off") return Value(false);
      why = "must be true or false, got '" + std::string(s) + "'";
      return std::nullopt;
    }
    case Kind::integer: {
      std::int64_t x = 0;
      const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
      if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
        why = "must be an integer, got '" + std::string(s) + "'";
        return std::nullopt;
      }
      return Value(x);
    }
    case Kind::number: {
      double x = 0;
      const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
      if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) {
        why = "must be a number, got '" + std::string(s) + "'";
        return std::nullopt;
      }
      return Value(x);
    }
    case Kind::list: {
      std::vector<std::string> out;
      std::size_t start = 0;
      while (start <= s.size()) {
        const auto comma = s.find(',', start);
        const auto end = comma == std::string_view::npos ? s.size() : comma;
        if (auto item = trim(s.substr(start, end - start)); !item.empty()) out.emplace_back(item);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      return Value(std::move(out));
    }
  }
  return std::nullopt;
}

struct Where {
  std::int64_t line = 0;
  std::int64_t column = 0;
};
Where where(const toml::source_region& r) {
  return {static_cast<std::int64_t>(r.begin.line), static_cast<std::int64_t>(r.begin.column)};
}

// A value from the TOML file; on a wrong type, why and where (an array's element points at the element).
std::optional<Value> from_node(const Option& o, const toml::node& n, std::string& why, Where& at) {
  at = where(n.source());
  switch (o.kind) {
    case Kind::text:
      if (auto* s = n.as_string()) return Value(s->get());
      break;
    case Kind::boolean:
      if (auto* b = n.as_boolean()) return Value(b->get());
      break;
    case Kind::integer:
      if (auto* i = n.as_integer()) return Value(i->get());
      break;
    case Kind::number:
      if (auto* f = n.as_floating_point()) return Value(f->get());
      if (auto* i = n.as_integer()) return Value(static_cast<double>(i->get()));
      break;
    case Kind::list:
      if (auto* a = n.as_array()) {
        std::vector<std::string> out;
        for (const auto& element : *a) {
          if (auto* s = element.as_string()) {
            out.push_back(s->get());
          } else {
            at = where(element.source());
            why = "must hold strings only, got " + std::string(node_name(element.type()));
            return std::nullopt;
          }
        }
        return Value(std::move(out));
      }
      break;
  }
  why = "must be " + std::string(kind_name(o.kind)) + ", got " + std::string(node_name(n.type()));
  return std::nullopt;
}

// " (did you mean 'listen'?)", " (it belongs in [database])" or "".
std::string hint(std::string_view section, std::string_view key) {
  for (const auto& o : table()) {
    if (o.key == key && o.section != section) return " (it belongs in [" + std::string(o.section) + "])";
  }
  std::string_view best;
  std::size_t best_d = 3;
  for (const auto& o : table()) {
    if (o.section != section) continue;
    const auto d = edit_distance(key, o.key);
    if (d < best_d) {
      best_d = d;
      best = o.key;
    }
  }
  return best.empty() ? "" : " (did you mean '" + std::string(best) + "'?)";
}

std::string section_list() {
  std::string out;
  for (auto s : sections()) out += (out.empty() ? "[" : ", [") + std::string(s) + "]";
  return out;
}

bool is_section(std::string_view name) {
  const auto& all = sections();
  return std::find(all.begin(), all.end(), name) != all.end();
}

std::string trim_secret(std::string value) {
  while (!value.empty() &&
         (value.back() == '\n' || value.back() == '\r' || value.back() == ' ' || value.back() == '\t')) {
    value.pop_back();
  }
  return value;
}

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += fmt::format("\\u{:04X}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

nlohmann::json to_json(const Value& v) {
  return std::visit([](const auto& x) { return nlohmann::json(x); }, v);
}

void set_source(Sources* sources, const Option& o, std::string where) {
  if (sources) (*sources)[o.name()] = std::move(where);
}

}  // namespace

std::string Option::env() const { return "PERFTRIAGE_" + upper(section) + "_" + upper(key); }
std::string Option::name() const { return std::string(section) + "." + std::string(key); }

const std::vector<Option>& options() { return table(); }

const Option* find_option(std::string_view section, std::string_view key) {
  for (const auto& o : table()) {
    if (o.section == section && o.key == key) return &o;
  }
  return nullptr;
}

const std::vector<std::string_view>& sections() {
  static const std::vector<std::string_view> kSections = {"server",    "database", "limits", "github",
                                                          "retention", "notify",   "cache"};
  return kSections;
}

std::string to_string(const ConfigError& e) {
  std::string out = e.source;
  if (e.line > 0) out += ":" + std::to_string(e.line) + ":" + std::to_string(e.column);
  return out + ": " + e.message;
}

// [[tracking]]: an array of tables with exactly the keys of TrackingPolicy; every mistake is reported with its place.
void apply_tracking(const toml::node& node, Settings& settings, const std::function<void(Where, std::string)>& error) {
  const auto* array = node.as_array();
  if (!array || !array->is_array_of_tables()) {
    error(where(node.source()), "tracking policies are [[tracking]] tables, one per policy");
    return;
  }
  auto strings = [&](const toml::node& n, const char* key, std::vector<std::string>& out) {
    const auto* a = n.as_array();
    out.clear();
    for (std::size_t i = 0; a && i < a->size(); ++i) {
      if (const auto* v = a->get(i)->as_string(); v && !v->get().empty()) out.push_back(v->get());
    }
    if (!a || out.size() != a->size() || out.empty()) {
      error(where(n.source()), std::string("[[tracking]] ") + key + " must be a non-empty array of strings");
      return false;
    }
    return true;
  };
  for (const auto& element : *array) {
    const auto& t = *element.as_table();
    TrackingPolicy p;
    bool ok = true;
    for (const auto& [key, value] : t) {
      const std::string_view k = key.str();
      const Where at = where(value.source());
      if (k == "repo" || k == "runs" || k == "taxonomy") {
        const auto* v = value.as_string();
        std::string text = v ? v->get() : std::string();
        std::string why;
        if (!v || text.empty())
          why = "must be a non-empty string";
        else if (k == "repo" && std::count(text.begin(), text.end(), '/') != 1)
          why = "must be \"owner/name\"";
        else if (k == "runs" && text.rfind("tag:", 0) != 0 && text.rfind("key:", 0) != 0)
          why = "must be \"tag:GLOB\" (over run tags) or \"key:GLOB\" (over run keys)";
        else if (k == "taxonomy" && !analyzers::labeler::load_taxonomy(text))
          why = "names no taxonomy (torch-xpu-ops, pytorch)";
        if (!why.empty()) {
          error(at, "[[tracking]] " + std::string(k) + " " + why);
          ok = false;
          continue;
        }
        (k == "repo" ? p.repo : k == "runs" ? p.runs : p.taxonomy) = text;
      } else if (k == "platforms" || k == "kinds") {
        ok = strings(value, k == "platforms" ? "platforms" : "kinds", k == "platforms" ? p.platforms : p.kinds) && ok;
        for (const auto& kind : k == "kinds" ? p.kinds : std::vector<std::string>{}) {
          if (kind != "slow" && kind != "regressions") {
            error(at, "[[tracking]] kinds are \"slow\" and \"regressions\", not \"" + kind + "\"");
            ok = false;
          }
        }
      } else if (k == "settle_seconds") {
        const auto* v = value.as_integer();
        if (!v || v->get() < 0 || v->get() > 86400) {
          error(at, "[[tracking]] settle_seconds must be an integer from 0 to 86400");
          ok = false;
          continue;
        }
        p.settle_seconds = v->get();
      } else {
        error(where(key.source()), "unknown key '" + std::string(k) +
                                       "' in [[tracking]]; the keys are repo, platforms, runs, kinds, taxonomy, "
                                       "settle_seconds");
        ok = false;
      }
    }
    if (p.repo.empty() || p.platforms.empty()) {
      error(where(t.source()), "[[tracking]] needs repo and platforms");
      ok = false;
    }
    if (ok) settings.tracking.push_back(std::move(p));
  }
}

// One key of a [[github.repos]] table into `r`; the reason it is wrong, or "".
std::string apply_repo_key(std::string_view k, const toml::node& value, RepoSettings& r) {
  if (k == "label" || k == "comment" || k == "tracking" || k == "checks") {
    const auto* v = value.as_boolean();
    if (!v) return "must be true or false";
    (k == "label" ? r.label : k == "comment" ? r.comment : k == "tracking" ? r.tracking : r.checks) = v->get();
    return "";
  }
  const auto* v = value.as_string();
  const std::string text = v ? v->get() : std::string();
  if (text.empty()) return "must be a non-empty string";
  if (k == "repo" && (std::count(text.begin(), text.end(), '/') != 1 || text.front() == '/' || text.back() == '/'))
    return "must be \"owner/name\"";
  if (k == "taxonomy" && !analyzers::labeler::load_taxonomy(text)) return "names no taxonomy (torch-xpu-ops, pytorch)";
  if (k == "label_layers" && !analyzers::labeler::layers_from_name(text))
    return "must be " + analyzers::labeler::layers_names_text();
  if (k == "label_model") {
    if (auto why = check_label_model(Value(text)); !why.empty()) return why;
  }
  (k == "repo" ? r.repo : k == "taxonomy" ? r.taxonomy : k == "label_layers" ? r.label_layers : r.label_model) = text;
  return "";
}

// [[github.repos]]: the repositories the bot acts in, each once; every mistake is reported with its place.
void apply_github_repos(const toml::node& node, Settings& settings,
                        const std::function<void(Where, std::string)>& error) {
  const auto* array = node.as_array();
  if (!array || !array->is_array_of_tables()) {
    error(where(node.source()), "[github] repos are [[github.repos]] tables, one per repository");
    return;
  }
  for (const auto& element : *array) {
    const auto& t = *element.as_table();
    RepoSettings r;
    bool ok = true;
    for (const auto& [key, value] : t) {
      static constexpr std::string_view kKeys[] = {"repo",  "taxonomy", "label_layers", "label_model",
                                                   "label", "comment",  "tracking",     "checks"};
      if (std::find(std::begin(kKeys), std::end(kKeys), key.str()) == std::end(kKeys)) {
        error(where(key.source()), "unknown key '" + std::string(key.str()) +
                                       "' in [[github.repos]]; the keys are repo, taxonomy, label_layers, "
                                       "label_model, label, comment, tracking, checks");
        ok = false;
      } else if (auto why = apply_repo_key(key.str(), value, r); !why.empty()) {
        error(where(value.source()), "[[github.repos]] " + std::string(key.str()) + " " + why);
        ok = false;
      }
    }
    const bool listed = find_repo(settings.github.repos, r.repo) != nullptr;
    if (r.repo.empty() || listed) {
      error(where(t.source()),
            r.repo.empty() ? "[[github.repos]] needs repo" : "[[github.repos]] lists " + r.repo + " twice");
      ok = false;
    }
    if (ok) settings.github.repos.push_back(std::move(r));
  }
}

// A [[tracking]] policy for a repository [[github.repos]] leaves out would never run: said when the file loads.
void check_tracking_repos(const Settings& settings, const std::function<void(Where, std::string)>& error) {
  if (settings.github.repos.empty()) return;
  for (const auto& p : settings.tracking) {
    if (!find_repo(settings.github.repos, p.repo))
      error(Where{}, "[[tracking]] repo " + p.repo + " is not in [[github.repos]]: add it there");
  }
}

ConfigErrors apply_toml(std::string_view text_in, std::string_view file_name, Settings& settings, Sources* sources) {
  ConfigErrors errors;
  const std::string file(file_name);
  auto error = [&](Where at, std::string message) { errors.push_back({file, at.line, at.column, std::move(message)}); };
  toml::table doc;
  try {
    doc = toml::parse(text_in, file_name);
  } catch (const toml::parse_error& e) {
    error(where(e.source()), "TOML syntax: " + std::string(e.description()));
    return errors;
  }
  for (const auto& [section_key, section_node] : doc) {
    const std::string_view section = section_key.str();
    const auto* section_table = section_node.as_table();
    if (section == "tracking") {
      apply_tracking(section_node, settings, error);
      continue;
    }
    if (!is_section(section)) {
      if (!section_table) {
        std::string belongs;
        for (const auto& o : table()) {
          if (o.key == section) {
            belongs = " (it belongs in [" + std::string(o.section) + "])";
            break;
          }
        }
        error(where(section_key.source()), "key '" + std::string(section) + "' outside a section" +
                                               (belongs.empty() ? "; the sections are " + section_list() : belongs));
      } else {
        error(where(section_key.source()),
              "unknown section [" + std::string(section) + "]; the sections are " + section_list());
      }
      continue;
    }
    if (!section_table) {
      error(where(section_node.source()),
            "[" + std::string(section) + "] must be a table, got " + std::string(node_name(section_node.type())));
      continue;
    }
    for (const auto& [key, node] : *section_table) {
      if (section == "github" && key.str() == "repos") {
        apply_github_repos(node, settings, error);
        continue;
      }
      const Option* o = find_option(section, key.str());
      if (!o) {
        error(where(key.source()), "unknown key '" + std::string(key.str()) + "' in [" + std::string(section) + "]" +
                                       hint(section, key.str()));
        continue;
      }
      const std::string what = "[" + std::string(section) + "] " + std::string(o->key) + " ";
      std::string why;
      Where at;
      auto value = from_node(*o, node, why, at);
      if (!value) {
        error(at, what + why);
        continue;
      }
      if (auto bad = validate(*o, *value); !bad.empty()) {
        error(at, what + bad);
        continue;
      }
      o->set(settings, *value);
      set_source(sources, *o, file + ":" + std::to_string(at.line));
    }
  }
  check_tracking_repos(settings, error);
  // toml++ iterates a table in key order; a person reads the file top to bottom.
  std::stable_sort(errors.begin(), errors.end(), [](const ConfigError& a, const ConfigError& b) {
    return std::pair(a.line, a.column) < std::pair(b.line, b.column);
  });
  return errors;
}

ConfigErrors apply_file(const std::string& path, Settings& settings, Sources* sources) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return {{path, 0, 0, "is a directory, not a config file"}};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return {{path, 0, 0, std::string("cannot read the config file: ") + std::strerror(errno)}};
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return {{path, 0, 0, "cannot read the config file"}};
  settings.config_file = path;
  return apply_toml(ss.str(), path, settings, sources);
}

ConfigErrors apply_env(const Env& env, Settings& settings, Sources* sources) {
  ConfigErrors errors;
  // The short name of the database (the one the other commands read): below PERFTRIAGE_DATABASE_PATH.
  if (auto it = env.find(kDbEnv); it != env.end() && !it->second.empty()) {
    settings.db_path = it->second;
    if (sources) (*sources)["database.path"] = kDbEnv;
  }
  for (const auto& o : table()) {
    const auto it = env.find(o.env());
    if (it == env.end()) continue;
    std::string why;
    auto value = from_text(o, it->second, why);
    if (value) why = validate(o, *value);
    if (!why.empty()) {
      errors.push_back({it->first, 0, 0, why});
      continue;
    }
    o.set(settings, *value);
    set_source(sources, o, it->first);
  }
  // The secrets themselves. A *_FILE variable beside one wins (a file named explicitly, as --github-token-file does).
  auto secret = [&](const char* name, const char* file_name, std::string& value, std::string& file, const char* key) {
    const auto it = env.find(name);
    if (it == env.end() || it->second.empty() || env.count(file_name)) return;  // set but empty = not set
    value = trim_secret(it->second);
    file.clear();  // beats a token_file of the config file: the environment overrides the file
    if (sources) {
      (*sources)[key] = name;
      sources->erase(std::string(key) + "_file");
    }
  };
  secret(kTokenEnv, "PERFTRIAGE_GITHUB_TOKEN_FILE", settings.github.token, settings.github.token_file, "github.token");
  secret(kWebhookSecretEnv, "PERFTRIAGE_GITHUB_WEBHOOK_SECRET_FILE", settings.github.webhook_secret,
         settings.github.webhook_secret_file, "github.webhook_secret");
  // A misspelt setting must not pass silently: an unknown name under a section's prefix is an error.
  for (const auto& entry : env) {
    const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one in a lambda
    if (name == kTokenEnv) continue;
    for (auto s : sections()) {
      const std::string prefix = "PERFTRIAGE_" + upper(s) + "_";
      if (name.rfind(prefix, 0) != 0) continue;
      const bool known = std::any_of(table().begin(), table().end(), [&](const Option& o) { return o.env() == name; });
      if (!known) {
        std::string keys;
        for (const auto& o : table()) {
          if (o.section == s) keys += (keys.empty() ? "" : ", ") + o.env();
        }
        errors.push_back({name, 0, 0, "not a setting; the [" + std::string(s) + "] variables are " + keys});
      }
    }
  }
  return errors;
}

ConfigErrors apply_overrides(const std::vector<Override>& values, Settings& settings, Sources* sources) {
  ConfigErrors errors;
  for (const auto& given : values) {
    const Option* o = nullptr;
    for (const auto& candidate : table()) {
      if (candidate.name() == given.name) o = &candidate;
    }
    if (!o) {
      errors.push_back({given.source, 0, 0, "not a setting: " + given.name});
      continue;
    }
    std::string why;
    auto value = from_text(*o, given.value, why);
    if (value) why = validate(*o, *value);
    if (!why.empty()) {
      errors.push_back({given.source, 0, 0, why});
      continue;
    }
    o->set(settings, *value);
    set_source(sources, *o, given.source);
  }
  return errors;
}

Result<std::string> expand_path(std::string_view path, const Env& env) {
  std::string out;
  for (std::size_t i = 0; i < path.size();) {
    if (path.substr(i, kCredentials.size()) == kCredentials) {
      const auto it = env.find("CREDENTIALS_DIRECTORY");
      if (it == env.end() || it->second.empty()) {
        return make_error(ErrorKind::invalid_input, "no_credentials_directory",
                          "'" + std::string(path) +
                              "' uses ${CREDENTIALS_DIRECTORY}, which is not set (systemd sets it for "
                              "LoadCredential=; elsewhere give the path itself)");
      }
      out += it->second;
      i += kCredentials.size();
    } else {
      out += path[i++];
    }
  }
  return out;
}

ConfigErrors load_secrets(Settings& settings, const Env& env) {
  ConfigErrors errors;
  auto load = [&](const std::string& file, std::string& secret, const char* setting) {
    if (file.empty()) return;
    auto path = expand_path(file, env);
    if (!path) {
      errors.push_back({setting, 0, 0, path.error().message});
      return;
    }
    std::ifstream in(*path, std::ios::binary);
    if (!in) {
      errors.push_back({setting, 0, 0,
                        "cannot read '" + *path + "': " + std::strerror(errno) +
                            " (refusing to start without the secret it names)"});
      return;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    secret = trim_secret(ss.str());
  };
  load(settings.github.token_file, settings.github.token, "[github] token_file");
  load(settings.github.webhook_secret_file, settings.github.webhook_secret, "[github] webhook_secret_file");
  load(settings.notify.secret_file, settings.notify.secret, "[notify] secret_file");
  load(settings.github.private_key_file, settings.github.private_key, "[github] private_key_file");
  if (settings.github.app() && !settings.github.token.empty()) {
    errors.push_back({"[github] app_id", 0, 0,
                      "a GitHub App and a token are both set: give one (the App's installation tokens, or the token)"});
  }
  return errors;
}

Resolved resolve_settings(const Overrides& overrides, const Env& env, bool read_secrets) {
  Resolved r;
  auto add = [&](ConfigErrors more) { r.errors.insert(r.errors.end(), more.begin(), more.end()); };
  std::string file = overrides.config_file;
  if (file.empty()) {
    if (auto it = env.find(kConfigEnv); it != env.end()) file = it->second;
  }
  if (!file.empty()) add(apply_file(file, r.settings, &r.sources));
  add(apply_env(env, r.settings, &r.sources));
  add(apply_overrides(overrides.values, r.settings, &r.sources));
  if (r.settings.github.app() != !r.settings.github.private_key_file.empty()) {
    r.errors.push_back({"[github] app_id", 0, 0, "app_id and private_key_file go together: set both, or neither"});
  }
  if (read_secrets && r.errors.empty()) {
    add(load_secrets(r.settings, env));
    if (!r.settings.github.token_file.empty()) r.sources["github.token"] = "token_file";
    if (!r.settings.github.webhook_secret_file.empty()) r.sources["github.webhook_secret"] = "webhook_secret_file";
  }
  return r;
}

std::string default_db_path(const Env& env) {
  for (const char* name : {"PERFTRIAGE_DATABASE_PATH", kDbEnv}) {
    if (auto it = env.find(name); it != env.end() && !it->second.empty()) return it->second;
  }
  return Settings{}.db_path;
}

Env process_environment() {
  Env env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    env.emplace(std::string(entry.substr(0, eq)), std::string(entry.substr(eq + 1)));
  }
  return env;
}

nlohmann::json effective_settings(const Settings& settings) {
  nlohmann::json out = nlohmann::json::object();
  out["config_file"] = settings.config_file;
  for (auto s : sections()) out[std::string(s)] = nlohmann::json::object();
  for (const auto& o : table()) out[std::string(o.section)][std::string(o.key)] = to_json(o.get(settings));
  out["github"]["token"] = settings.github.token.empty() ? "" : "***";
  out["github"]["webhook_secret"] = settings.github.webhook_secret.empty() ? "" : "***";
  return out;
}

std::string toml_literal(const Value& value) {
  struct Visitor {
    std::string operator()(const std::string& s) const { return toml_string(s); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return format_number(d); }
    std::string operator()(const std::vector<std::string>& l) const {
      std::string out = "[";
      for (std::size_t i = 0; i < l.size(); ++i) out += (i ? ", " : "") + toml_string(l[i]);
      return out + "]";
    }
  };
  return std::visit(Visitor{}, value);
}

std::string effective_toml(const Settings& settings, const Sources& sources) {
  std::string out = "# perftriage: effective settings; defaults < config file < environment < flags\n";
  out += "# config file: " + (settings.config_file.empty() ? std::string("(none)") : settings.config_file) + "\n";
  for (auto s : sections()) {
    out += "\n[" + std::string(s) + "]\n";
    for (const auto& o : table()) {
      if (o.section != s) continue;
      std::string line = std::string(o.key) + " = " + toml_literal(o.get(settings));
      if (auto it = sources.find(o.name()); it != sources.end()) line += "  # " + it->second;
      out += line + "\n";
    }
    if (s == "github") {
      auto secret = [&](const char* name, const std::string& value, const char* key) {
        std::string line = std::string("# ") + name + ": " + (value.empty() ? "(not set)" : "***");
        if (auto it = sources.find(key); it != sources.end() && !value.empty()) line += " (from " + it->second + ")";
        out += line + "\n";
      };
      secret("token", settings.github.token, "github.token");
      secret("webhook secret", settings.github.webhook_secret, "github.webhook_secret");
    }
  }
  return out;
}

std::string keys_markdown() {
  const Settings defaults;
  auto cell = [](std::string s) {
    std::string out;
    for (const char c : s) out += c == '|' ? std::string("\\|") : std::string(1, c);
    return out;
  };
  std::string out =
      "| section | key | environment variable | flag | default | meaning |\n"
      "| --- | --- | --- | --- | --- | --- |\n";
  for (const auto& o : table()) {
    out += "| `[" + std::string(o.section) + "]` | `" + std::string(o.key) + "` | `" + o.env() + "` | " +
           (o.flag.empty() ? std::string() : "`--" + std::string(o.flag) + "`") + " | `" +
           cell(toml_literal(o.get(defaults))) + "` | " + cell(std::string(o.meaning));
    if (o.kind == Kind::integer || o.kind == Kind::number) out += " (" + range_words(o) + ")";
    out += " |\n";
  }
  return out;
}

}  // namespace perftriage::server::config
