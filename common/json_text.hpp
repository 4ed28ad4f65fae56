#pragma once
// JSON text as perftriage writes it everywhere (API bodies, stored JSON columns, logs): compact, and never throwing
// on invalid UTF-8 in a string (a file name or a log line from outside), which is replaced by U+FFFD instead.
#include <string>

#include <nlohmann/json.hpp>

namespace perftriage {

inline std::string dump_json(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace perftriage
