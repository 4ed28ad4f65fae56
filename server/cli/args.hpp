#pragma once
// A tiny command-line reader: `--name value`, `--name=value`, boolean `--flag`, and positionals.
// Which options take a value is declared by the command, so `--json PATH` never eats the path.
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace perftriage::cli {

struct ParsedArgs {
  std::map<std::string, std::vector<std::string>> values;  // option -> every value given (repeatable)
  std::set<std::string> flags;                             // boolean options present
  std::vector<std::string> positionals;

  [[nodiscard]] bool has(const std::string& name) const { return flags.count(name) || values.count(name); }
  [[nodiscard]] std::optional<std::string> get(const std::string& name) const {
    auto it = values.find(name);
    if (it == values.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
  }
  [[nodiscard]] std::string get_or(const std::string& name, std::string fallback) const {
    auto v = get(name);
    return v ? *v : std::move(fallback);
  }
  [[nodiscard]] std::vector<std::string> all(const std::string& name) const {
    auto it = values.find(name);
    return it == values.end() ? std::vector<std::string>{} : it->second;
  }
};

// `with_value`: option names (without "--") that take a value; `flags`: those that do not.
// Unknown options are an error (code "unknown_option").
Result<ParsedArgs> parse_args(const std::vector<std::string>& argv, std::initializer_list<const char*> with_value,
                              std::initializer_list<const char*> flags);
// The same with names known only at run time (serve's options come from the settings table, server/app/config.hpp).
Result<ParsedArgs> parse_args_from(const std::vector<std::string>& argv, const std::vector<std::string>& with_value,
                                   const std::vector<std::string>& flags);

}  // namespace perftriage::cli
