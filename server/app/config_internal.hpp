#pragma once
// What the parts of server/app/config.hpp share; nothing outside them includes this.
//   config_table.cpp   the table of every setting (options()) and the rules its values follow
//   config_load.cpp    the layers: the TOML file, the environment, the flags, the secrets; resolve_settings
//   config_arrays.cpp  the file's arrays of tables, [[tracking]] and [[github.repos]] (config_arrays.hpp)
//   config_render.cpp  what is printed from the table: `config show` (JSON, TOML) and `config keys`
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "server/app/config.hpp"

namespace perftriage::server::config::detail {

// A Value read as its option's kind: set and check are only handed values of their option's kind.
inline const std::string& text(const Value& v) { return std::get<std::string>(v); }
inline bool boolean(const Value& v) { return std::get<bool>(v); }
inline std::int64_t integer(const Value& v) { return std::get<std::int64_t>(v); }
inline double number(const Value& v) { return std::get<double>(v); }
inline const std::vector<std::string>& list(const Value& v) { return std::get<std::vector<std::string>>(v); }

// The one variable a secret's path may name: systemd's LoadCredential= directory.
inline constexpr std::string_view kCredentials = "${CREDENTIALS_DIRECTORY}";

std::string upper(std::string_view s);
// An option's range as words: "between 1 and 256", "> 0 and <= 3600".
std::string range_words(const Option& o);
// [github] label_model, and label_model of a [[github.repos]] table: "" = fine, else why not.
std::string check_label_model(const Value& v);

}  // namespace perftriage::server::config::detail
