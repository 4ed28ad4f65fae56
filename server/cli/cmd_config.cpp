// `perftriage config check FILE...`, `config show [--config FILE] [--json] [serve's flags]`, `config keys`.
#include <nlohmann/json.hpp>
#include <ostream>

#include "server/cli/cli_common.hpp"
#include "server/cli/commands.hpp"
#include "server/app/config.hpp"

namespace perftriage::cli {
namespace {

constexpr const char* kConfigUsage =
    "usage: perftriage config check FILE...       every error of each file as FILE:LINE:COL: message\n"
    "       perftriage config show [--config FILE] [--json] [serve's flags]\n"
    "                                             the effective settings (file < environment < flags), secrets "
    "masked\n"
    "       perftriage config keys                every key: section, key, environment variable, flag, default\n";

// Each file on its own against the defaults: the syntax, the sections and keys, the types and ranges. The secret
// files are not read (they may exist only under systemd's LoadCredential=); `serve` reads them and refuses to start
// when it cannot.
int check(const Args& files, std::ostream& out, std::ostream& err) {
  if (files.empty()) {
    err << kConfigUsage;
    return 2;
  }
  int rc = 0;
  for (const auto& file : files) {
    server::Settings settings;
    const auto errors = server::config::apply_file(file, settings);
    if (errors.empty()) {
      out << "ok: " << file << "\n";
      continue;
    }
    for (const auto& e : errors) err << server::config::to_string(e) << "\n";
    err << file << ": " << errors.size() << " error" << (errors.size() == 1 ? "" : "s") << "\n";
    rc = 1;
  }
  return rc;
}

int show(const Args& argv, std::ostream& out, std::ostream& err) {
  auto args = server::config::parse_command_line(argv, {}, {"json"});
  if (!args) {
    print_error(err, args.error());
    return 2;
  }
  if (!args->positionals.empty()) {
    err << kConfigUsage;
    return 2;
  }
  const auto env = server::config::process_environment();
  auto resolved = server::config::resolve_settings(*args, env, /*read_secrets=*/false);
  if (!resolved.errors.empty()) {
    for (const auto& e : resolved.errors) err << "perftriage: " << server::config::to_string(e) << "\n";
    return 2;
  }
  // The secret files as `serve` would read them. Outside the service (no CREDENTIALS_DIRECTORY, another user) they
  // may be unreadable: say so, and still show the rest.
  const auto secret_errors = server::config::load_secrets(resolved.settings, env);
  for (const auto& e : secret_errors) {
    err << "perftriage: warning: " << server::config::to_string(e) << " (`serve` would not start)\n";
  }
  if (!resolved.settings.github.token_file.empty() && !resolved.settings.github.token.empty()) {
    resolved.sources["github.token"] = "token_file";
  }
  if (!resolved.settings.github.webhook_secret_file.empty() && !resolved.settings.github.webhook_secret.empty()) {
    resolved.sources["github.webhook_secret"] = "webhook_secret_file";
  }
  if (args->has("json")) {
    out << server::config::effective_settings(resolved.settings).dump(2) << "\n";
  } else {
    out << server::config::effective_toml(resolved.settings, resolved.sources);
  }
  return 0;
}

}  // namespace

int cmd_config(const Args& args, std::ostream& out, std::ostream& err) {
  const std::string sub = args.empty() ? "" : args.front();
  const Args rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (sub == "check") return check(rest, out, err);
  if (sub == "show") return show(rest, out, err);
  if (sub == "keys" && rest.empty()) {
    out << server::config::keys_markdown();
    return 0;
  }
  if (sub == "--help" || sub == "-h" || sub == "help") {
    out << kConfigUsage;
    return 0;
  }
  err << kConfigUsage;
  return 2;
}

}  // namespace perftriage::cli
