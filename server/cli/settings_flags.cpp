#include "server/cli/settings_flags.hpp"

#include "server/cli/cli_common.hpp"

namespace perftriage::cli {
namespace {

namespace config = server::config;

// The default as --help shows it: text as it is, a list comma-separated, the rest as TOML writes it.
std::string default_text(const config::Option& o) {
  const config::Value v = o.get(server::Settings{});
  if (const auto* text = std::get_if<std::string>(&v)) return text->empty() ? "\"\"" : *text;
  if (const auto* list = std::get_if<std::vector<std::string>>(&v)) {
    std::string out;
    for (const auto& item : *list) out += (out.empty() ? "" : ",") + item;
    return out.empty() ? "\"\"" : out;
  }
  return config::toml_literal(v);
}

std::string type_name(config::Kind kind) {
  switch (kind) {
    case config::Kind::integer: return "INT";
    case config::Kind::number: return "NUMBER";
    case config::Kind::list: return "A,B";
    default: return "TEXT";
  }
}

}  // namespace

void add_settings_flags(CLI::App& app, SettingsFlags& flags) {
  app.add_option("--config", flags.config,
                 "the TOML config file (default: $" + std::string(config::kConfigEnv) +
                     "); precedence: flags > environment > file > defaults")
      ->group("Settings");
  for (const auto& o : config::options()) {
    if (o.flag.empty()) continue;
    const std::string flag(o.flag);
    const std::string help =
        std::string(o.meaning) + " ([" + std::string(o.section) + "] " + std::string(o.key) + ", $" + o.env() + ")";
    const std::string group = "Settings [" + std::string(o.section) + "]";
    CLI::Option* opt = nullptr;
    if (o.kind == config::Kind::boolean) {
      opt = app.add_flag("--" + flag, flags.switches[flag], help);
    } else {
      opt = app.add_option("--" + flag, flags.values[flag], help)->type_name(type_name(o.kind));
    }
    opt->default_str(default_text(o))->group(group);
    flags.bound.emplace_back(&o, opt);
  }
}

config::Overrides to_overrides(const SettingsFlags& flags) {
  config::Overrides out;
  out.config_file = flags.config;
  for (const auto& [option, opt] : flags.bound) {
    if (opt->count() == 0) continue;
    const std::string flag(option->flag);
    const bool is_switch = option->kind == config::Kind::boolean;
    out.values.push_back({option->name(), is_switch ? "true" : flags.values.at(flag), "--" + flag});
  }
  return out;
}

Result<config::Overrides> parse_settings_flags(const std::vector<std::string>& argv) {
  CLI::App app{"settings"};
  SettingsFlags flags;
  add_settings_flags(app, flags);
  refuse_options_as_values(app);
  std::vector<std::string> reversed(argv.rbegin(), argv.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    return make_error(ErrorKind::invalid_input, "usage", e.what());
  }
  return to_overrides(flags);
}

}  // namespace perftriage::cli
