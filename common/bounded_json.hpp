#pragma once
// Untrusted JSON is parsed only through parse_bounded_json: a linear pre-scan refuses text deeper than
// `max_depth` or longer than `max_bytes` before nlohmann::json builds anything, because nlohmann's copy, dump and
// comparison recurse once per nesting level (100k levels overflow the stack). The error names the limit and where
// the input crossed it, so a client can tell a size problem from a syntax problem.
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.hpp"

namespace perftriage {

struct JsonLimits {
  std::size_t max_depth = 64;        // nesting of objects and arrays
  std::size_t max_bytes = 1u << 20;  // the whole text

  static JsonLimits bytes(std::size_t max_bytes) {
    JsonLimits l;
    l.max_bytes = max_bytes;
    return l;
  }
};

// The deepest nesting of `text` (strings and escapes honoured), stopping early once `stop_at` is exceeded.
inline std::size_t json_nesting_depth(std::string_view text, std::size_t stop_at, std::size_t* offset = nullptr) {
  std::size_t depth = 0;
  std::size_t deepest = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > deepest) deepest = depth;
      if (deepest > stop_at) {
        if (offset != nullptr) *offset = i;
        return deepest;
      }
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// `what` names the input in the error ("label request", "upload meta", "webhook payload", ...).
inline Result<nlohmann::json> parse_bounded_json(std::string_view text, std::string_view what, JsonLimits limits = {}) {
  if (text.size() > limits.max_bytes) {
    return make_error(ErrorKind::too_large, "json_too_large",
                      std::string(what) + ": JSON of " + std::to_string(text.size()) + " bytes is over the limit of " +
                          std::to_string(limits.max_bytes) + " bytes");
  }
  std::size_t at = 0;
  if (json_nesting_depth(text, limits.max_depth, &at) > limits.max_depth) {
    return make_error(ErrorKind::invalid_input, "json_too_deep",
                      std::string(what) + ": JSON nested deeper than " + std::to_string(limits.max_depth) +
                          " levels (at byte " + std::to_string(at) + ")");
  }
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    return make_error(ErrorKind::invalid_input, "bad_json", std::string(what) + ": not valid JSON");
  }
  return j;
}

}  // namespace perftriage
