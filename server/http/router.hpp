#pragma once
// Method + path-pattern routing. Patterns are literal segments and {placeholders}
// ("/api/v1/runs/{key}"); placeholders match one decoded segment.
// Handlers return Result<ApiResponse>: an Error becomes its HTTP answer here, in Router::dispatch (error_response),
// so a handler body reads as its logic (PT_TRY / PT_ASSIGN). A handler returning a plain ApiResponse still fits.
// Each route also says where its handler runs and how large a body it takes, so the transport can refuse an
// oversized body from the header alone and keep heavy work off the I/O threads.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "server/http/http_types.hpp"

namespace perftriage::server {

class AppContext;
using Handler = std::function<Result<ApiResponse>(const ApiRequest&, AppContext&)>;
// Runs on the request's headers before the body is read (`body` is empty): an Error answers at once, the body is
// never read and the connection is closed. For checks that need no body, such as "is a webhook secret configured".
using HeaderCheck = std::function<std::optional<Error>(const ApiRequest&, AppContext&)>;

enum class Lane {
  io,     // cheap and bounded (liveness, static files): answered on the I/O thread
  read,   // database reads: the read pool
  heavy,  // writes by someone known (uploads, artifacts, triage, signed webhooks): the small heavy pool
  // CPU-heavy work any reader may ask for (classify, label): a pool of its own, lower in priority, with a limit per
  // client, so what strangers send never takes a CI upload's worker or queue slot.
  compute,
};

// What a caller must hold to run a route (server/http/auth.hpp). `admin` implies every other scope.
enum class Scope {
  none,    // always public: liveness, the dashboard's files, metrics, the OpenAPI description, the webhook (HMAC)
  read,    // public unless read_access = "token"
  upload,  // uploads and case artifacts
  triage,  // tracking issues and other triage actions
  bot,     // the bot's operational views (outbox, webhook deliveries)
  admin,   // replace=true, deleting, token management
};

struct RouteOptions {
  static constexpr std::size_t kSmallBody = 64 * 1024;  // a GET or a small JSON request
  Lane lane = Lane::read;
  std::size_t max_body_bytes = kSmallBody;  // 0 = the server's upload limit (serve --max-body-mb)
  HeaderCheck header_check;
  Scope scope = Scope::read;
  // When set, decides the scope from the request head (uploads with replace=true need admin).
  std::function<Scope(const ApiRequest&)> scope_for;
  // State-changing routes accept only their documented content types (lower-case media types without parameters);
  // empty = any. Checked from the header, before the body is read: 415 otherwise.
  std::vector<std::string> content_types;
  // The query parameters the route takes. When declared, any other one answers 400 unknown_parameter (naming it, with
  // the nearest declared name), so a typo such as `platfrom=` is refused instead of silently ignored. Undeclared
  // (nullopt): any query is accepted (the dashboard's files, liveness, metrics, GitHub's webhook URL).
  std::optional<std::vector<std::string>> query_params;
  // A GET answer of a Lane::read route may be kept by the response cache until the next committed write
  // (server/http/response_cache.hpp); false for one that changes without a write (/metrics).
  bool cacheable = true;
  std::string pattern;  // filled in by Router::add: the route's path pattern (metrics and access-log label)
  std::string method;   // filled in by Router::add

  static RouteOptions on(Lane lane, std::size_t max_body_bytes = kSmallBody, HeaderCheck check = {}) {
    RouteOptions o;
    o.lane = lane;
    o.max_body_bytes = max_body_bytes;
    o.header_check = std::move(check);
    return o;
  }
  RouteOptions& require(Scope s) {
    scope = s;
    return *this;
  }
  RouteOptions& accept(std::vector<std::string> types) {
    content_types = std::move(types);
    return *this;
  }
  RouteOptions& params(std::vector<std::string> names) {
    query_params = std::move(names);
    return *this;
  }
  RouteOptions& uncached() {
    cacheable = false;
    return *this;
  }
};

class Router {
 public:
  void add(std::string method, std::string pattern, Handler handler, RouteOptions options = {});
  // 404 for an unknown path, 405 (with Allow) for a known path and another method, 400 for a query parameter the route
  // does not declare; a handler's Error becomes its status and body (error_response).
  ApiResponse dispatch(ApiRequest request, AppContext& app) const;
  // The options of the route `dispatch` would run; defaults for an unknown route (it will answer 404 / 405).
  [[nodiscard]] const RouteOptions& options_for(std::string_view method, std::string_view path) const;
  // Every route's options (method and pattern included), in registration order: the OpenAPI test checks the
  // published description against this table.
  [[nodiscard]] std::vector<const RouteOptions*> table() const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;
    Handler handler;
    RouteOptions options;
  };
  Result<ApiResponse> answer(ApiRequest request, AppContext& app, std::string& allow) const;
  const Route* find(std::string_view method, const std::vector<std::string>& raw, std::vector<std::string>& params,
                    std::string* allow) const;
  std::vector<Route> routes_;
  RouteOptions unknown_;
};

// 400 unknown_parameter for the first query parameter a route that declares its parameters does not take (column =
// its name; the message names the nearest declared one). The transport calls it from the request head, before the
// body is read; dispatch calls it again for requests that do not come through the transport.
std::optional<Error> unknown_parameter(const ApiRequest& request, const RouteOptions& options);

}  // namespace perftriage::server
