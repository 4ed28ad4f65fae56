#pragma once
// The service's settings, from four layers, each overriding the one before:
//
//   defaults (server/app/settings.hpp)
//   < the TOML file (`serve --config FILE`, or PERFTRIAGE_CONFIG)
//   < the environment: PERFTRIAGE_<SECTION>_<KEY> (upper case; lists comma-separated), and the secrets themselves
//     in PERFTRIAGE_GITHUB_TOKEN and PERFTRIAGE_WEBHOOK_SECRET
//   < explicit values (the command line's flags, turned into Overrides by server/cli/settings_flags.hpp).
//
// The database path also answers to the short PERFTRIAGE_DB (below PERFTRIAGE_DATABASE_PATH): every command that
// opens the database resolves it the same way (default_db_path).
//
// One table, options(), names every setting once: its [section] and key, its environment variable, its flag, its
// type and range, its meaning, and how it reads and writes Settings. The file, the environment and the flags are
// applied through it, and `perftriage config show`, `config keys` and docs/config.md are printed from it, so none of
// them can drift from the others (tests/server/app/config_test.cpp checks docs/config.md and deploy/perftriage.toml).
// The table is in config_table.cpp; the layers are read in config_load.cpp (the [[tracking]] and [[github.repos]]
// arrays in config_arrays.cpp), and config_render.cpp prints from the table.
//
// Every error is collected, not just the first: a file with three mistakes gets three lines, each with its line and
// column. (A TOML syntax error stops the parse where it is, so it is reported alone.)
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "common/result.hpp"
#include "server/app/settings.hpp"

namespace perftriage::server::config {

enum class Kind { text, boolean, integer, number, list };
// What a setting holds once read: text, boolean, integer (int64), number (double), or a list of strings.
using Value = std::variant<std::string, bool, std::int64_t, double, std::vector<std::string>>;

struct Option {
  std::string_view section;  // "server", "database", "limits", "github", "retention"
  std::string_view key;      // the TOML key
  std::string_view flag;     // serve's flag without "--"; "" = none. A boolean flag sets the setting to true.
  Kind kind = Kind::text;
  double min = 0;  // integer / number: the inclusive range
  double max = 0;
  bool min_exclusive = false;  // number: the value must be > min (a timeout of 0 means nothing)
  std::string_view meaning;    // one line for `config keys`, docs/config.md and deploy/perftriage.toml
  void (*set)(Settings&, const Value&) = nullptr;  // the value has the option's kind and passed the checks
  Value (*get)(const Settings&) = nullptr;
  std::string (*check)(const Value&) = nullptr;  // a rule beyond kind and range: "" = fine, else why not

  [[nodiscard]] std::string env() const;   // PERFTRIAGE_SERVER_LISTEN
  [[nodiscard]] std::string name() const;  // server.listen
};

// Every setting, in the order of the sections and of deploy/perftriage.toml.
const std::vector<Option>& options();
const Option* find_option(std::string_view section, std::string_view key);
// The sections, in order.
const std::vector<std::string_view>& sections();

// The environment variables holding the secrets themselves (not paths). They belong to the environment layer.
inline constexpr const char* kTokenEnv = "PERFTRIAGE_GITHUB_TOKEN";
inline constexpr const char* kWebhookSecretEnv = "PERFTRIAGE_WEBHOOK_SECRET";
// The config file when `--config` is not given.
inline constexpr const char* kConfigEnv = "PERFTRIAGE_CONFIG";
// The database when neither a flag nor PERFTRIAGE_DATABASE_PATH names one (the short name of the command line).
inline constexpr const char* kDbEnv = "PERFTRIAGE_DB";

struct ConfigError {
  std::string source;     // the file, the environment variable or the flag ("--listen")
  std::int64_t line = 0;  // 1-based; only in a file
  std::int64_t column = 0;
  std::string message;
};
// "FILE:LINE:COL: message", "PERFTRIAGE_SERVER_LISTEN: message" or "--listen: message".
std::string to_string(const ConfigError& e);
using ConfigErrors = std::vector<ConfigError>;

using Env = std::map<std::string, std::string>;
// Where each setting that is not a default came from: "server.listen" -> "perftriage.toml:3", "PERFTRIAGE_...",
// "--listen". Secrets are "github.token" / "github.webhook_secret".
using Sources = std::map<std::string, std::string>;

// The layers. Each applies what it can and returns every error it found (empty = fine); `file_name` only names
// the text in errors. A value with an error leaves the setting as it was.
ConfigErrors apply_toml(std::string_view text, std::string_view file_name, Settings& settings,
                        Sources* sources = nullptr);
ConfigErrors apply_file(const std::string& path, Settings& settings, Sources* sources = nullptr);  // reads it
// Only PERFTRIAGE_<SECTION>_<KEY> of the table and the two secrets are read. An unknown variable with a section's
// prefix (PERFTRIAGE_SERVER_LISTN) is an error; other PERFTRIAGE_* variables are not settings and are left alone.
ConfigErrors apply_env(const Env& env, Settings& settings, Sources* sources = nullptr);

// One explicit value (a command-line flag, as text), applied above the environment.
struct Override {
  std::string name;    // the setting: "server.listen"
  std::string value;   // as the environment would spell it: "127.0.0.1:0", "true", "a,b"
  std::string source;  // where it came from, for errors and `config show`: "--listen"
};
struct Overrides {
  std::string config_file;  // "" = PERFTRIAGE_CONFIG, or none
  std::vector<Override> values;
};
ConfigErrors apply_overrides(const std::vector<Override>& values, Settings& settings, Sources* sources = nullptr);
// Reads github.token_file / webhook_secret_file (when set) into the secrets, trailing whitespace dropped.
// `${CREDENTIALS_DIRECTORY}` (systemd's LoadCredential=) is taken from `env`; an unset variable or an unreadable
// file is an error: the service refuses to start rather than run without the secret it was given.
ConfigErrors load_secrets(Settings& settings, const Env& env);
// `${CREDENTIALS_DIRECTORY}` in `path` replaced from `env`; an error when it is not set. No other `${...}`.
Result<std::string> expand_path(std::string_view path, const Env& env);

struct Resolved {
  Settings settings;
  Sources sources;
  ConfigErrors errors;  // empty = the settings are the effective ones
};
// defaults < file (config_file, else PERFTRIAGE_CONFIG) < environment < overrides, then the secret files (unless
// `read_secrets` is false). Pure apart from reading the config file and the secret files.
Resolved resolve_settings(const Overrides& overrides, const Env& env, bool read_secrets = true);

// The database of a command given no --db: PERFTRIAGE_DATABASE_PATH, else PERFTRIAGE_DB, else the default
// (var/perftriage.sqlite). The environment layer of resolve_settings reads the same two variables.
std::string default_db_path(const Env& env);

// The process environment as a map (the one impure input of resolve_settings, kept out of it).
Env process_environment();

// The effective settings: {"config_file", "server": {...}, "database": {...}, ...}, one member per key of the table,
// plus github.token and github.webhook_secret masked: "***" when set, "" when not.
nlohmann::json effective_settings(const Settings& settings);
// The same as TOML a person reads (and could use as a config file): each key that is not a default carries a
// comment saying where it came from; the secrets are comments, masked.
std::string effective_toml(const Settings& settings, const Sources& sources);
// A value as TOML writes it: "text", true, 8, 1.0, ["a", "b"].
std::string toml_literal(const Value& value);
// The table of every key (section, key, environment variable, flag, default, meaning) in markdown: docs/config.md
// holds exactly this text (a test checks it).
std::string keys_markdown();

}  // namespace perftriage::server::config
