// `perftriage config check FILE...`, `config show [--config FILE] [--json] [serve's flags]`, `config keys`.
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>

#include "server/app/config.hpp"
#include "server/cli/commands.hpp"
#include "server/cli/settings_flags.hpp"

namespace perftriage::cli {
namespace {

namespace config = server::config;

// Each file on its own against the defaults: the syntax, the sections and keys, the types and ranges. The secret
// files are not read (they may exist only under systemd's LoadCredential=); `serve` reads them and refuses to start
// when it cannot.
Result<int> check(const std::vector<std::string>& files, Io io) {
  int rc = 0;
  for (const auto& file : files) {
    server::Settings settings;
    const auto errors = config::apply_file(file, settings);
    if (errors.empty()) {
      io.out << "ok: " << file << "\n";
      continue;
    }
    for (const auto& e : errors) io.err << config::to_string(e) << "\n";
    io.err << file << ": " << errors.size() << " error" << (errors.size() == 1 ? "" : "s") << "\n";
    rc = 1;
  }
  return rc;
}

Result<int> show(const SettingsFlags& flags, bool json, Io io) {
  const auto env = config::process_environment();
  auto resolved = config::resolve_settings(to_overrides(flags), env, /*read_secrets=*/false);
  if (!resolved.errors.empty()) {
    for (const auto& e : resolved.errors) io.err << "perftriage: " << config::to_string(e) << "\n";
    return 2;
  }
  // The secret files as `serve` would read them. Outside the service (no CREDENTIALS_DIRECTORY, another user) they
  // may be unreadable: say so, and still show the rest.
  for (const auto& e : config::load_secrets(resolved.settings, env)) {
    io.err << "perftriage: warning: " << config::to_string(e) << " (`serve` would not start)\n";
  }
  if (!resolved.settings.github.token_file.empty() && !resolved.settings.github.token.empty()) {
    resolved.sources["github.token"] = "token_file";
  }
  if (!resolved.settings.github.webhook_secret_file.empty() && !resolved.settings.github.webhook_secret.empty()) {
    resolved.sources["github.webhook_secret"] = "webhook_secret_file";
  }
  if (json) {
    io.out << config::effective_settings(resolved.settings).dump(2) << "\n";
  } else {
    io.out << config::effective_toml(resolved.settings, resolved.sources);
  }
  return 0;
}

}  // namespace

void add_config(const Command& cmd) {
  cmd.app->require_subcommand(1);
  auto files = std::make_shared<std::vector<std::string>>();
  const Command check_cmd{cmd.app->add_subcommand("check", "every error of each file as FILE:LINE:COL: message"),
                          cmd.io, cmd.chosen};
  check_cmd.app->add_option("files", *files, "TOML config files")->required();
  check_cmd.on_run([files, io = cmd.io] { return [files, io] { return check(*files, io); }; });

  auto flags = std::make_shared<SettingsFlags>();
  auto json = std::make_shared<bool>(false);
  const Command show_cmd{cmd.app->add_subcommand("show",
                                                 "the effective settings (file < environment < flags), "
                                                 "secrets masked"),
                         cmd.io, cmd.chosen};
  show_cmd.app->add_flag("--json", *json, "as JSON instead of TOML");
  add_settings_flags(*show_cmd.app, *flags);
  show_cmd.on_run([flags, json, io = cmd.io] { return [flags, json, io] { return show(*flags, *json, io); }; });

  const Command keys_cmd{cmd.app->add_subcommand("keys",
                                                 "every key: section, key, environment variable, flag, "
                                                 "default (the table of docs/config.md)"),
                         cmd.io, cmd.chosen};
  keys_cmd.on_run([io = cmd.io] {
    return [io]() -> Result<int> {
      io.out << config::keys_markdown();
      return 0;
    };
  });
}

}  // namespace perftriage::cli
