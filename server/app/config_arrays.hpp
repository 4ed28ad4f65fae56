#pragma once
// The config file's arrays of tables, [[tracking]] and [[github.repos]], for config_load.cpp: unlike a [section]
// they are not in the table of options (config_table.cpp), each of their tables is one record of Settings.
#include <cstdint>
#include <functional>
#include <string>

#include <toml++/toml.h>  // Debian builds libtomlplusplus with exceptions: parse errors are toml::parse_error

#include "server/app/config_internal.hpp"

namespace perftriage::server::config::detail {

// A place in the TOML file, 1-based (0 = the file as a whole).
struct Where {
  std::int64_t line = 0;
  std::int64_t column = 0;
};
inline Where where(const toml::source_region& r) {
  return {static_cast<std::int64_t>(r.begin.line), static_cast<std::int64_t>(r.begin.column)};
}
// Collects one mistake of the file, at its place.
using ErrorAt = std::function<void(Where, std::string)>;

// The document's `tracking` and [github]'s `repos`: each table without a mistake is appended to Settings; every
// mistake is reported with its place.
void apply_tracking(const toml::node& node, Settings& settings, const ErrorAt& error);
void apply_github_repos(const toml::node& node, Settings& settings, const ErrorAt& error);
// A [[tracking]] policy for a repository [[github.repos]] leaves out would never run: said when the file loads.
void check_tracking_repos(const Settings& settings, const ErrorAt& error);

}  // namespace perftriage::server::config::detail
