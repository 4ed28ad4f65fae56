// The layers of server/app/config.hpp: the TOML file, the environment, the explicit values (flags) and the secret
// files, each applied through the table of options (config_table.cpp); and resolve_settings, which stacks them.
#include "server/app/config.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "common/strings.hpp"
#include "server/app/config_arrays.hpp"

extern char** environ;  // NOLINT: POSIX

namespace perftriage::server::config {
namespace {

using namespace detail;  // the helpers the parts share (config_internal.hpp, config_arrays.hpp)

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

// " (it belongs in [database])" when a section other than `section` has `key`, else "".
std::string belongs(std::string_view section, std::string_view key) {
  for (const auto& o : options()) {
    if (o.key == key && o.section != section) return " (it belongs in [" + std::string(o.section) + "])";
  }
  return "";
}

// " (did you mean 'listen'?)", " (it belongs in [database])" or "".
std::string hint(std::string_view section, std::string_view key) {
  if (auto elsewhere = belongs(section, key); !elsewhere.empty()) return elsewhere;
  std::string_view best;
  std::size_t best_d = 3;
  for (const auto& o : options()) {
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

void set_source(Sources* sources, const Option& o, std::string where) {
  if (sources) (*sources)[o.name()] = std::move(where);
}

// A name at the top of the file that is neither a [section] nor [[tracking]].
void unknown_top_level(const toml::key& name, const toml::node& node, const ErrorAt& error) {
  const std::string_view n = name.str();
  if (node.as_table()) {
    error(where(name.source()), "unknown section [" + std::string(n) + "]; the sections are " + section_list());
    return;
  }
  const std::string elsewhere = belongs("", n);
  error(where(name.source()), "key '" + std::string(n) + "' outside a section" +
                                  (elsewhere.empty() ? "; the sections are " + section_list() : elsewhere));
}

// The keys of one [section], each through the table of options; [github]'s repos is [[github.repos]].
void apply_section(std::string_view section, const toml::table& keys, const std::string& file, Settings& settings,
                   Sources* sources, const ErrorAt& error) {
  for (const auto& [key, node] : keys) {
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

// The database's setting: its variable (PERFTRIAGE_DATABASE_PATH) is the table's, named there only, and read both by
// the environment layer and by default_db_path, each above the short kDbEnv.
const Option& db_option() {
  static const Option* const kDb = find_option("database", "path");
  return *kDb;
}

// The secrets themselves. A *_FILE variable beside one wins (a file named explicitly, as --github-token-file does).
void apply_env_secrets(const Env& env, Settings& settings, Sources* sources) {
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
}

// A misspelt setting must not pass silently: an unknown name under a section's prefix is an error.
ConfigErrors unknown_variables(const Env& env) {
  ConfigErrors errors;
  for (const auto& entry : env) {
    const std::string& name = entry.first;  // not a structured binding: clang 14 cannot capture one in a lambda
    if (name == kTokenEnv) continue;
    for (auto s : sections()) {
      const std::string prefix = "PERFTRIAGE_" + upper(s) + "_";
      if (name.rfind(prefix, 0) != 0) continue;
      const bool known =
          std::any_of(options().begin(), options().end(), [&](const Option& o) { return o.env() == name; });
      if (!known) {
        std::string keys;
        for (const auto& o : options()) {
          if (o.section == s) keys += (keys.empty() ? "" : ", ") + o.env();
        }
        errors.push_back({name, 0, 0, "not a setting; the [" + std::string(s) + "] variables are " + keys});
      }
    }
  }
  return errors;
}

}  // namespace

std::string to_string(const ConfigError& e) {
  std::string out = e.source;
  if (e.line > 0) out += ":" + std::to_string(e.line) + ":" + std::to_string(e.column);
  return out + ": " + e.message;
}

ConfigErrors apply_toml(std::string_view text_in, std::string_view file_name, Settings& settings, Sources* sources) {
  ConfigErrors errors;
  const std::string file(file_name);
  const ErrorAt error = [&](Where at, std::string message) {
    errors.push_back({file, at.line, at.column, std::move(message)});
  };
  toml::table doc;
  try {
    doc = toml::parse(text_in, file_name);
  } catch (const toml::parse_error& e) {
    error(where(e.source()), "TOML syntax: " + std::string(e.description()));
    return errors;
  }
  for (const auto& [section_key, section_node] : doc) {
    const std::string_view section = section_key.str();
    if (section == "tracking") {
      apply_tracking(section_node, settings, error);
    } else if (!is_section(section)) {
      unknown_top_level(section_key, section_node, error);
    } else if (const auto* keys = section_node.as_table()) {
      apply_section(section, *keys, file, settings, sources, error);
    } else {
      error(where(section_node.source()),
            "[" + std::string(section) + "] must be a table, got " + std::string(node_name(section_node.type())));
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
  // The short name of the database (the one the other commands read): below the table's own variable.
  if (auto it = env.find(kDbEnv); it != env.end() && !it->second.empty()) {
    settings.db_path = it->second;
    if (sources) (*sources)[db_option().name()] = kDbEnv;
  }
  for (const auto& o : options()) {
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
  apply_env_secrets(env, settings, sources);
  auto unknown = unknown_variables(env);
  errors.insert(errors.end(), unknown.begin(), unknown.end());
  return errors;
}

ConfigErrors apply_overrides(const std::vector<Override>& values, Settings& settings, Sources* sources) {
  ConfigErrors errors;
  for (const auto& given : values) {
    const Option* o = nullptr;
    for (const auto& candidate : options()) {
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
  for (const std::string& name : {db_option().env(), std::string(kDbEnv)}) {
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

}  // namespace perftriage::server::config
