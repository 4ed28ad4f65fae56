// The table of every setting (server/app/config.hpp): where each lives (TOML, environment, flag), its kind and range,
// what it means, and how it maps onto Settings; and the rules its values follow beyond kind and range.
#include "server/app/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <type_traits>
#include <utility>

#include <fmt/format.h>

#include "analyzers/labeler/labeler.hpp"
#include "analyzers/labeler/model.hpp"
#include "server/app/config_internal.hpp"

namespace perftriage::server::config {
namespace detail {

std::string upper(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string range_words(const Option& o) {
  auto n = [&](double v) {
    return o.kind == Kind::integer ? std::to_string(static_cast<std::int64_t>(v)) : fmt::format("{}", v);
  };
  if (o.min_exclusive) return "> " + n(o.min) + " and <= " + n(o.max);
  return "between " + n(o.min) + " and " + n(o.max);
}

std::string check_label_model(const Value& v) {
  const std::string s(text(v));
  if (s.empty() || s == "none") return "";
  auto m = analyzers::labeler::load_model(s);
  return m ? "" : "is not a label model: " + m.error().message;
}

}  // namespace detail

namespace {

using namespace detail;  // the helpers the parts share (config_internal.hpp)

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
  return access_from_name(text(v)) ? "" : "must be \"public\" or \"token\", got '" + text(v) + "'";
}
std::string check_http_url(const Value& v) {
  const std::string& s = text(v);
  const bool ok = (s.rfind("https://", 0) == 0 && s.size() > 8) || (s.rfind("http://", 0) == 0 && s.size() > 7);
  return ok ? "" : "must be an http:// or https:// URL, got '" + s + "'";
}
std::string check_optional_http_url(const Value& v) { return text(v).empty() ? std::string() : check_http_url(v); }
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
std::string check_label_layers(const Value& v) {
  return analyzers::labeler::layers_from_name(text(v)) ? "" : "must be " + analyzers::labeler::layers_names_text();
}
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

// The settings with a fixed set of values, held as enums: parsed from their names (the option's check has already
// refused any other name) and shown by them.
std::optional<Access> from_name(std::string_view s, const Access* /*type*/) { return access_from_name(s); }
std::optional<analyzers::labeler::Layers> from_name(std::string_view s, const analyzers::labeler::Layers* /*type*/) {
  return analyzers::labeler::layers_from_name(s);
}
std::string_view name_of(Access a) { return to_string(a); }
std::string_view name_of(analyzers::labeler::Layers l) { return analyzers::labeler::layers_name(l); }

// A setting that is one member of Settings, or of one of its parts (Path: &Settings::limits, &LimitSettings::x),
// written and read as it is: a string, a bool, a double, a list, or an integer of any width. A size kept in bytes
// and set in MiB or KiB is shifted by `Shift` bits on the way in and out. The table is only handed values of the
// option's kind, so the option's kind must be the member's (a mismatch throws std::bad_variant_access, which
// tests/server/app/config_test.cpp's EveryKeyIsApplied would hit for every key).
template <unsigned Shift, auto... Path>
struct Member {
  // s.*Path[0].*Path[1]...: .* folded over the path
  static auto& of(Settings& s) { return (s.*....*Path); }
  static const auto& of(const Settings& s) { return (s.*....*Path); }

  static void set(Settings& s, const Value& v) {
    auto& m = of(s);
    using T = std::remove_reference_t<decltype(m)>;
    if constexpr (std::is_same_v<T, bool>) {
      m = boolean(v);
    } else if constexpr (std::is_enum_v<T>) {
      m = from_name(text(v), static_cast<const T*>(nullptr)).value_or(m);
    } else if constexpr (std::is_integral_v<T>) {
      m = static_cast<T>(static_cast<T>(integer(v)) << Shift);
    } else if constexpr (std::is_same_v<T, double>) {
      m = number(v);
    } else {
      m = std::get<T>(v);  // std::string, std::vector<std::string>
    }
  }
  static Value get(const Settings& s) {
    const auto& m = of(s);
    using T = std::remove_cv_t<std::remove_reference_t<decltype(m)>>;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      return static_cast<std::int64_t>(m >> Shift);
    } else if constexpr (std::is_enum_v<T>) {
      return Value(std::string(name_of(m)));
    } else {
      return Value(m);
    }
  }
};

template <unsigned Shift, auto... Path>
Option bind_member(Option o) {
  o.set = &Member<Shift, Path...>::set;
  o.get = &Member<Shift, Path...>::get;
  return o;
}
// The option `o`, read and written straight to the member at Path.
template <auto... Path>
Option bound(Option o) {
  return bind_member<0, Path...>(std::move(o));
}
// The same for a size Settings holds in bytes and the key gives in MiB (…_mb) or KiB (…_kb).
template <auto... Path>
Option bound_mib(Option o) {
  return bind_member<20, Path...>(std::move(o));
}
template <auto... Path>
Option bound_kib(Option o) {
  return bind_member<10, Path...>(std::move(o));
}

// Each entry: where the setting lives (TOML, environment, flag), its kind and range, its meaning, and how it maps
// onto Settings: bound<member> for a setting stored as it is, bound_mib / bound_kib for a size stored in bytes, and a
// set/get pair of its own only where the stored form differs (listen's host and port, min_interval_ms in seconds).
// Units are in the key (…_mb, …_kb, …_s, …_ms, …_days).
// Designated initializers leave out what an option does not have (a flag, a range, a check); GCC 12's
// -Wmissing-field-initializers warns about every omitted member even though each has a default.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
// one piece: the table of every setting, one entry each, read top to bottom like deploy/perftriage.toml.
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
      bound<&Settings::public_url>(
          {.section = "server", .key = "public_url", .flag = "public-url", .kind = Kind::text,
           .meaning = "the dashboard's address as people reach it; links the bot posts to GitHub use it (\"\" = none)",
           .check = check_optional_http_url}),
      bound<&Settings::threads>(
          {.section = "server", .key = "threads", .flag = "threads", .kind = Kind::integer, .min = 0, .max = 1024,
           .meaning = "I/O threads (sockets only); 0 = one per CPU core, at least 2"}),
      bound<&Settings::auth, &AuthSettings::read_access>(
          {.section = "server", .key = "read_access", .flag = "read-access", .kind = Kind::text,
           .meaning = "\"public\": reads need no token; \"token\": every /api/v1 read needs a token with scope read",
           .check = check_read_access}),
      bound<&Settings::auth, &AuthSettings::cors_origins>(
          {.section = "server", .key = "cors_origins", .kind = Kind::list,
           .meaning = "origins allowed to call the API from a browser (http(s)://HOST[:PORT]); empty = CORS off",
           .check = check_origins}),
      bound<&Settings::web_dir>(
          {.section = "server", .key = "web_dir", .flag = "web-dir", .kind = Kind::text,
           .meaning = "the dashboard's files; \"\" = the installed or built-in web/ directory"}),
      bound<&Settings::read_workers>(
          {.section = "server", .key = "read_workers", .flag = "read-workers", .kind = Kind::integer, .min = 1,
           .max = 256, .meaning = "threads answering database reads"}),
      bound<&Settings::read_queue>(
          {.section = "server", .key = "read_queue", .flag = "read-queue", .kind = Kind::integer, .min = 1,
           .max = 100000, .meaning = "reads waiting for a worker; past it 503 queue_full with Retry-After"}),
      bound<&Settings::heavy_workers>(
          {.section = "server", .key = "heavy_workers", .flag = "heavy-workers", .kind = Kind::integer, .min = 1,
           .max = 256, .meaning = "threads for uploads, artifacts, webhooks, triage and tracking issues"}),
      bound<&Settings::heavy_queue>(
          {.section = "server", .key = "heavy_queue", .flag = "heavy-queue", .kind = Kind::integer, .min = 1,
           .max = 100000, .meaning = "heavy requests waiting for a worker; past it 503 queue_full"}),
      bound<&Settings::compute_workers>(
          {.section = "server", .key = "compute_workers", .flag = "compute-workers", .kind = Kind::integer, .min = 1,
           .max = 256,
           .meaning = "threads for classify and label (any reader's CPU-heavy work), below the heavy pool's priority"}),
      bound<&Settings::compute_queue>(
          {.section = "server", .key = "compute_queue", .flag = "compute-queue", .kind = Kind::integer, .min = 1,
           .max = 100000, .meaning = "classify and label requests waiting for a worker; past it 503 queue_full"}),
      bound<&Settings::compute_per_client>(
          {.section = "server", .key = "compute_per_client", .flag = "compute-per-client", .kind = Kind::integer,
           .min = 1, .max = 100000,
           .meaning = "classify and label requests one client (its token, else its address) may have waiting or "
                      "running; past it 429 with Retry-After"}),
      bound<&Settings::auth, &AuthSettings::compute_access>(
          {.section = "server", .key = "compute_access", .flag = "compute-access", .kind = Kind::text,
           .meaning = "classify and label: \"public\" = as read_access says; \"token\" = a token with scope read, even "
                      "when reads are public", .check = check_read_access}),
      bound<&Settings::slow_threshold>(
          {.section = "server", .key = "slow_threshold", .flag = "threshold", .kind = Kind::number, .min = 0,
           .max = 1000, .min_exclusive = true,
           .meaning = "a case is slow when 0 < speedup < this; the default of the threshold query parameter"}),
      bound<&Settings::integrity_check>(
          {.section = "server", .key = "integrity_check", .flag = "integrity-check", .kind = Kind::boolean,
           .meaning = "run PRAGMA integrity_check at start-up and refuse to start on a damaged database"}),
      bound<&Settings::demo>(
          {.section = "server", .key = "demo", .flag = "demo", .kind = Kind::boolean,
           .meaning = "load the demo data (refused on a database with other runs); never talks to GitHub"}),
      bound<&Settings::access_log, &AccessLogSettings::enabled>(
          {.section = "server", .key = "access_log", .kind = Kind::boolean,
           .meaning = "one JSON line per request on stderr, written before the answer leaves"}),
      bound<&Settings::access_log, &AccessLogSettings::sample>(
          {.section = "server", .key = "access_log_sample", .kind = Kind::number, .min = 0, .max = 1,
           .meaning = "the share of answers below 400 the access log writes (every 4xx and 5xx is written); the rest "
                      "are counted in perftriage_access_log_skipped_total"}),
      bound<&Settings::access_log, &AccessLogSettings::max_lines_per_s>(
          {.section = "server", .key = "access_log_max_per_s", .kind = Kind::integer, .min = 0, .max = 10000000,
           .meaning = "access-log lines written in one second at most (errors included); 0 = no cap; the rest are "
                      "counted in perftriage_access_log_skipped_total"}),
      // [database]
      bound<&Settings::db_path>(
          {.section = "database", .key = "path", .flag = "db", .kind = Kind::text,
           .meaning = "the SQLite database file (created, with its directory, when missing), or a postgresql:// URL",
           .check = check_not_empty}),
      // [limits]
      bound_mib<&Settings::max_body_bytes>(
          {.section = "limits", .key = "max_body_mb", .flag = "max-body-mb", .kind = Kind::integer, .min = 1,
           .max = 1 << 20,
           .meaning = "largest upload, artifact or classify body, in MiB (413 past it, from the header)"}),
      bound_kib<&Settings::max_header_bytes>(
          {.section = "limits", .key = "max_header_kb", .kind = Kind::integer, .min = 1, .max = 1024,
           .meaning = "largest request line and headers, in KiB"}),
      bound<&Settings::limits, &LimitSettings::header_timeout_s>(
          {.section = "limits", .key = "header_timeout_s", .flag = "header-timeout-s", .kind = Kind::number, .min = 0,
           .max = 3600, .min_exclusive = true,
           .meaning = "the request line and headers must arrive within this (408)"}),
      bound<&Settings::limits, &LimitSettings::body_timeout_s>(
          {.section = "limits", .key = "body_timeout_s", .flag = "body-timeout-s", .kind = Kind::number, .min = 0,
           .max = 86400, .min_exclusive = true, .meaning = "the whole body must arrive within this (408)"}),
      bound<&Settings::limits, &LimitSettings::idle_timeout_s>(
          {.section = "limits", .key = "idle_timeout_s", .flag = "idle-timeout-s", .kind = Kind::number, .min = 0,
           .max = 86400, .min_exclusive = true, .meaning = "a kept-alive connection with no new request is closed"}),
      bound<&Settings::limits, &LimitSettings::write_timeout_s>(
          {.section = "limits", .key = "write_timeout_s", .kind = Kind::number, .min = 0, .max = 86400,
           .min_exclusive = true, .meaning = "a response the client does not read within this is dropped"}),
      bound<&Settings::limits, &LimitSettings::max_connections>(
          {.section = "limits", .key = "max_connections", .flag = "max-connections", .kind = Kind::integer, .min = 1,
           .max = 1000000, .meaning = "open connections; past it new ones are answered 503 and closed"}),
      bound_mib<&Settings::limits, &LimitSettings::spool_threshold_bytes>(
          {.section = "limits", .key = "spool_threshold_mb", .flag = "spool-threshold-mb", .kind = Kind::integer,
           .min = 0, .max = 1 << 20,
           .meaning = "bodies larger than this (MiB) go to a temporary file instead of memory"}),
      bound<&Settings::limits, &LimitSettings::spool_dir>(
          {.section = "limits", .key = "spool_dir", .kind = Kind::text,
           .meaning = "where spooled bodies go; \"\" = $TMPDIR or /tmp"}),
      bound<&Settings::limits, &LimitSettings::drain_timeout_s>(
          {.section = "limits", .key = "drain_timeout_s", .flag = "drain-timeout-s", .kind = Kind::number, .min = 0,
           .max = 3600, .meaning = "on SIGTERM, in-flight requests get this long to finish"}),
      bound<&Settings::unpack, &ingest::UnpackLimits::max_entries>(
          {.section = "limits", .key = "max_archive_entries", .kind = Kind::integer, .min = 1, .max = 10000000,
           .meaning = "members of one zip / tar upload (413 past it)"}),
      bound<&Settings::unpack, &ingest::UnpackLimits::max_parts>(
          {.section = "limits", .key = "max_multipart_parts", .kind = Kind::integer, .min = 1, .max = 1000000,
           .meaning = "parts of one multipart/form-data upload (413 too_many_parts past it)"}),
      bound_mib<&Settings::unpack, &ingest::UnpackLimits::max_entry_bytes>(
          {.section = "limits", .key = "max_archive_entry_mb", .kind = Kind::integer, .min = 1, .max = 1 << 20,
           .meaning = "one uncompressed archive member, in MiB"}),
      bound_mib<&Settings::unpack, &ingest::UnpackLimits::max_total_bytes>(
          {.section = "limits", .key = "max_archive_total_mb", .kind = Kind::integer, .min = 1, .max = 1 << 20,
           .meaning = "all uncompressed members of one archive together, in MiB (zip bombs stop here)"}),
      bound<&Settings::unpack, &ingest::UnpackLimits::max_ratio>(
          {.section = "limits", .key = "max_archive_ratio", .kind = Kind::integer, .min = 0, .max = 1000000,
           .meaning = "past archive_ratio_floor_mb unpacked, at most this many bytes out per archive byte read; "
                      "0 = off"}),
      bound_mib<&Settings::unpack, &ingest::UnpackLimits::ratio_floor_bytes>(
          {.section = "limits", .key = "archive_ratio_floor_mb", .kind = Kind::integer, .min = 0, .max = 1 << 20,
           .meaning = "unpacked MiB below which max_archive_ratio is not checked"}),
      // [github]
      bound<&Settings::github, &GitHubSettings::api_base>(
          {.section = "github", .key = "api", .flag = "github-api", .kind = Kind::text,
           .meaning = "GitHub's REST API; GitHub Enterprise Server: https://HOST/api/v3", .check = check_http_url}),
      bound<&Settings::github, &GitHubSettings::token_file>(
          {.section = "github", .key = "token_file", .flag = "github-token-file", .kind = Kind::text,
           .meaning = "file holding the bot's token; \"\" = PERFTRIAGE_GITHUB_TOKEN, or none: dry run, nothing sent",
           .check = check_secret_path}),
      bound<&Settings::github, &GitHubSettings::webhook_secret_file>(
          {.section = "github", .key = "webhook_secret_file", .flag = "webhook-secret-file", .kind = Kind::text,
           .meaning = "file holding the webhook HMAC secret; \"\" = PERFTRIAGE_WEBHOOK_SECRET, or none: webhooks "
                      "get 401",
           .check = check_secret_path}),
      bound<&Settings::github, &GitHubSettings::app_id>(
          {.section = "github", .key = "app_id", .flag = "github-app-id", .kind = Kind::text,
           .meaning = "act as this GitHub App (its App ID or client ID) instead of with a token; needs "
                      "private_key_file",
           .check = check_app_id}),
      bound<&Settings::github, &GitHubSettings::private_key_file>(
          {.section = "github", .key = "private_key_file", .flag = "github-private-key-file", .kind = Kind::text,
           .meaning = "file holding the App's private key (PEM), for app_id", .check = check_secret_path}),
      bound<&Settings::github, &GitHubSettings::bot_login>(
          {.section = "github", .key = "bot_login", .flag = "bot-login", .kind = Kind::text,
           .meaning = "the bot's login; events it caused are ignored", .check = check_not_empty}),
      bound<&Settings::github, &GitHubSettings::taxonomy>(
          {.section = "github", .key = "taxonomy", .flag = "bot-taxonomy", .kind = Kind::text,
           .meaning = "the labeler taxonomy the bot applies", .check = check_not_empty}),
      bound<&Settings::github, &GitHubSettings::label_model>(
          {.section = "github", .key = "label_model", .flag = "bot-label-model", .kind = Kind::text,
           .meaning = "the labeler's learned layer: \"\" = the taxonomy's own, \"none\" = rules only, or a model file",
           .check = check_label_model}),
      bound<&Settings::github, &GitHubSettings::label_layers>(
          {.section = "github", .key = "label_layers", .flag = "bot-label-layers", .kind = Kind::text,
           .meaning = "the labeler's layers the bot applies: both, gated (both, then the tracker's gates), tiered "
                      "(both, applied only where the calibrated probability reaches apply_at, the rest suggested), "
                      "rules or model",
           .check = check_label_layers}),
      bound<&Settings::github, &GitHubSettings::retrain_corrections>(
          {.section = "github", .key = "retrain_corrections", .flag = "bot-retrain-corrections",
           .kind = Kind::integer, .min = 0, .max = 1000000,
           .meaning = "serve retrains a repository's labeler once maintainers corrected its labels this many times "
                      "since it last learned (0 = never)"}),
      bound<&Settings::github, &GitHubSettings::retrain_check_s>(
          {.section = "github", .key = "retrain_check_s", .flag = "bot-retrain-check-s", .kind = Kind::number,
           .min = 0.1, .max = 604800, .meaning = "how often serve looks whether a labeler is due for retraining"}),
      {.section = "github", .key = "min_interval_ms", .flag = "github-min-interval-ms", .kind = Kind::integer,
       .min = 0, .max = 3600000, .meaning = "at least this long between two mutations sent to GitHub",
       .set = [](Settings& s, const Value& v) {
         s.github.min_mutation_interval_s = static_cast<double>(integer(v)) / 1000.0;
       },
       .get = [](const Settings& s) -> Value {
         return static_cast<std::int64_t>(std::llround(s.github.min_mutation_interval_s * 1000.0));
       }},
      bound<&Settings::github, &GitHubSettings::request_timeout_ms>(
          {.section = "github", .key = "timeout_ms", .flag = "github-timeout-ms", .kind = Kind::integer, .min = 0,
           .max = 3600000, .meaning = "a request to GitHub hanging longer is retried"}),
      bound<&Settings::github, &GitHubSettings::backoff_base_ms>(
          {.section = "github", .key = "backoff_ms", .flag = "github-backoff-ms", .kind = Kind::integer, .min = 0,
           .max = 3600000, .meaning = "retries wait this * 2^(attempts-1), at most 15 minutes"}),
      bound<&Settings::github, &GitHubSettings::max_attempts>(
          {.section = "github", .key = "max_attempts", .flag = "github-max-attempts", .kind = Kind::integer, .min = 1,
           .max = 1000, .meaning = "then the outbox action is marked failed (GET /api/v1/outbox?state=failed)"}),
      bound<&Settings::github, &GitHubSettings::claim_lease_ms>(
          {.section = "github", .key = "claim_lease_ms", .flag = "github-claim-lease-ms", .kind = Kind::integer,
           .min = 1000, .max = 86400000,
           .meaning = "PostgreSQL: a replica's claim on an outbox action; a killed replica's action is re-sent "
                      "after this"}),
      // [retention]
      bound<&Settings::retention, &RetentionSettings::interval_s>(
          {.section = "retention", .key = "interval_s", .kind = Kind::number, .min = 0, .max = 2592000,
           .min_exclusive = true, .meaning = "how often the retention task runs"}),
      bound<&Settings::retention, &RetentionSettings::raw_files_days>(
          {.section = "retention", .key = "raw_files_days", .kind = Kind::integer, .min = 0, .max = 36500,
           .meaning = "drop the raw bytes of uploaded files older than this (parsed rows stay); 0 = keep forever"}),
      bound<&Settings::retention, &RetentionSettings::nightly_runs_days>(
          {.section = "retention", .key = "nightly_runs_days", .kind = Kind::integer, .min = 0, .max = 36500,
           .meaning = "delete runs older than this unless they carry a kept tag; 0 = keep forever"}),
      bound<&Settings::retention, &RetentionSettings::keep_tags>(
          {.section = "retention", .key = "keep_tags", .kind = Kind::list,
           .meaning = "runs with a tag starting with one of these are never deleted", .check = check_tags}),
      bound<&Settings::retention, &RetentionSettings::webhook_deliveries_days>(
          {.section = "retention", .key = "webhook_deliveries_days", .kind = Kind::integer, .min = 0, .max = 36500,
           .meaning = "delete finished webhook deliveries older than this; 0 = keep forever"}),
      bound<&Settings::retention, &RetentionSettings::sent_outbox_days>(
          {.section = "retention", .key = "sent_outbox_days", .kind = Kind::integer, .min = 0, .max = 36500,
           .meaning = "delete outbox rows sent (or dry_run) longer ago than this; 0 = keep forever"}),
      // [notify]
      bound<&Settings::notify, &NotifySettings::urls>(
          {.section = "notify", .key = "urls", .kind = Kind::list,
           .meaning = "POST a signed JSON note here when a tracking issue opens, gains cases or closes; [] = none",
           .check = check_http_urls}),
      bound<&Settings::notify, &NotifySettings::secret_file>(
          {.section = "notify", .key = "secret_file", .kind = Kind::text,
           .meaning = "file holding the HMAC-SHA256 key of X-Perftriage-Signature-256; \"\" = unsigned",
           .check = check_secret_path}),
      // [cache]
      bound_mib<&Settings::cache, &CacheSettings::max_bytes>(
          {.section = "cache", .key = "max_mb", .flag = "cache-mb", .kind = Kind::integer, .min = 0, .max = 1 << 20,
           .meaning = "memory for cached GET answers, in MiB, each kept until a write changes what it read; 0 = no "
                      "cache"}),
  };
  // clang-format on
  return kOptions;
}
#pragma GCC diagnostic pop

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

}  // namespace perftriage::server::config
