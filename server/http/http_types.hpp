#pragma once
// Transport-neutral request/response values: routes see these, never Beast types.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/json_text.hpp"
#include "common/result.hpp"

namespace perftriage::server {

// A request body too large to keep in memory: the transport spools it to an unlinked temporary file and maps the
// file read-only (server/http/http_server.cpp). The bytes stay valid for as long as the object lives.
class MappedBody {
 public:
  MappedBody() = default;
  MappedBody(const MappedBody&) = delete;
  MappedBody& operator=(const MappedBody&) = delete;
  virtual ~MappedBody() = default;
  [[nodiscard]] virtual std::string_view bytes() const noexcept = 0;
};

struct ApiRequest {
  std::string method;                          // "GET", "POST", ...
  std::string path;                            // decoded path without the query
  std::map<std::string, std::string> query;    // decoded; last value wins
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;                            // a small body, in memory; empty when the body is `mapped`
  std::shared_ptr<const MappedBody> mapped;    // a large body (over [limits] spool_threshold_mb), spooled and mapped
  std::vector<std::string> params;             // values of {placeholders} in the matched route, in order
  std::string request_id;  // X-Request-Id: echoed when the client sent a well-formed one, else generated
  std::string token_name;  // the name of the API token that authorized the request; "" = anonymous

  [[nodiscard]] std::string q(const std::string& name, std::string fallback = {}) const {
    auto it = query.find(name);
    return it == query.end() ? std::move(fallback) : it->second;
  }
  [[nodiscard]] std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string{} : it->second;
  }
  // The body's bytes wherever they are: handlers read bodies through this, never `body` directly.
  [[nodiscard]] std::string_view bytes() const noexcept { return mapped ? mapped->bytes() : std::string_view(body); }
};

struct ApiResponse {
  unsigned status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // What the answer read, as data stamp scopes (schema/data_stamps.hpp: a run, a platform, a tag, "*"): the response
  // cache keeps it until a write changes one of them. Empty: it may have read anything, and any committed write
  // makes it stale.
  std::vector<std::string> data_scopes;
  // When set, the body's bytes instead of `body`: an answer of the response cache sharing its entry's bytes, sent
  // without a copy. Read a body through bytes().
  std::shared_ptr<const std::string> shared_body;
  [[nodiscard]] std::string_view bytes() const noexcept {
    return shared_body ? std::string_view(*shared_body) : std::string_view(body);
  }
};

// JSON text that never throws on invalid UTF-8 in stored strings (replaced by U+FFFD).
ApiResponse json_response(unsigned status, const nlohmann::json& body);
ApiResponse text_response(unsigned status, std::string content_type, std::string body);

// The one place where an Error becomes an HTTP status and body.
unsigned http_status(ErrorKind kind);
ApiResponse error_response(const Error& error);

// The media type of a Content-Type value, lower-case, without parameters or spaces: "Text/CSV; charset=utf-8" ->
// "text/csv". One definition for the route check (server/http/auth.cpp) and the handlers that branch on it.
std::string media_type(std::string_view content_type);

std::string url_decode(std::string_view s, bool plus_is_space);
// Percent-encodes everything but RFC 3986 unreserved characters (a query value or a path segment).
std::string url_encode(std::string_view s);
std::map<std::string, std::string> parse_query(std::string_view query);

}  // namespace perftriage::server
