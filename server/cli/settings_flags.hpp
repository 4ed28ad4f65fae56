#pragma once
// The command-line layer of the settings (server/app/config.hpp): every setting of the table that has a flag becomes
// an option of `serve` (and of `config show`), with its meaning, environment variable and default in --help, grouped
// by [section]. What was given becomes config::Overrides, applied above the environment.
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/result.hpp"
#include "server/app/config.hpp"

namespace perftriage::cli {

// Where CLI11 stores the flags of one command; it must outlive the parse (held by the command's options).
struct SettingsFlags {
  std::string config;                         // --config FILE
  std::map<std::string, std::string> values;  // by flag: the text given
  std::map<std::string, bool> switches;       // by flag: a boolean flag given
  std::vector<std::pair<const server::config::Option*, CLI::Option*>> bound;
};

// Declares --config and the table's flags on `app`, bound to `flags`.
void add_settings_flags(CLI::App& app, SettingsFlags& flags);
// The flags that were given (after the parse), as overrides of their settings.
server::config::Overrides to_overrides(const SettingsFlags& flags);
// The flags alone, parsed from `argv` (the command line of `serve` without the command): for tests and tools.
Result<server::config::Overrides> parse_settings_flags(const std::vector<std::string>& argv);

}  // namespace perftriage::cli
