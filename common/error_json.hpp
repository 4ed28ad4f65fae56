#pragma once
// An Error as the API's error body and the CLI's --json output show it: {"code", "message", "file", "line",
// "column"}, null where the error does not say.
#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace perftriage {

inline nlohmann::json to_json(const Error& error) {
  nlohmann::json e = {{"code", error.code}, {"message", error.message}};
  e["file"] = error.file.empty() ? nlohmann::json() : nlohmann::json(error.file);
  e["line"] = error.line > 0 ? nlohmann::json(error.line) : nlohmann::json();
  e["column"] = error.column.empty() ? nlohmann::json() : nlohmann::json(error.column);
  return e;
}

}  // namespace perftriage
