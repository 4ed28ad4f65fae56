#include "server/http/router.hpp"

#include <algorithm>
#include <exception>

#include "common/strings.hpp"

namespace perftriage::server {
namespace {

// The path's segments; empty ones ("//", a trailing '/') are dropped.
std::vector<std::string> split_path(std::string_view path) { return split(path, '/', EmptyParts::skip); }

bool match(const std::vector<std::string>& pattern, const std::vector<std::string>& raw,
           std::vector<std::string>& params) {
  if (pattern.size() != raw.size()) return false;
  params.clear();
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    const auto& p = pattern[i];
    if (p.size() > 2 && p.front() == '{' && p.back() == '}') {
      params.push_back(url_decode(raw[i], false));
    } else if (p != raw[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<Error> unknown_parameter(const ApiRequest& request, const RouteOptions& options) {
  if (!options.query_params) return std::nullopt;
  const auto& declared = *options.query_params;
  for (const auto& [name, value] : request.query) {
    if (std::find(declared.begin(), declared.end(), name) != declared.end()) continue;
    std::string message = request.method + " " + options.pattern + " takes no query parameter '" + name + "'";
    const std::string* nearest = nullptr;
    std::size_t best = 3;  // at most two edits away: a typo, not another word
    for (const auto& d : declared) {
      const std::size_t n = edit_distance(name, d);
      if (n < best) best = n, nearest = &d;
    }
    if (nearest != nullptr) {
      message += ": did you mean " + *nearest + "?";
    } else if (declared.empty()) {
      message += ": it takes none";
    } else {
      message += " (it takes " + join(declared, ", ") + ")";
    }
    return make_error(ErrorKind::invalid_input, "unknown_parameter", std::move(message), {}, 0, name);
  }
  return std::nullopt;
}

void Router::add(std::string method, std::string pattern, Handler handler, RouteOptions options) {
  options.pattern = pattern;
  options.method = method;
  routes_.push_back(Route{std::move(method), split_path(pattern), std::move(handler), std::move(options)});
}

std::vector<const RouteOptions*> Router::table() const {
  std::vector<const RouteOptions*> out;
  out.reserve(routes_.size());
  for (const auto& r : routes_) out.push_back(&r.options);
  return out;
}

const Router::Route* Router::find(std::string_view method, const std::vector<std::string>& raw,
                                  std::vector<std::string>& params, std::string* allow) const {
  for (const auto& route : routes_) {
    if (!match(route.segments, raw, params)) continue;
    const bool same = route.method == method || (route.method == "GET" && method == "HEAD");
    if (same) return &route;
    if (allow != nullptr) *allow += (allow->empty() ? "" : ", ") + route.method;
  }
  return nullptr;
}

const RouteOptions& Router::options_for(std::string_view method, std::string_view path) const {
  std::vector<std::string> params;
  const Route* route = find(method, split_path(path), params, nullptr);
  return route != nullptr ? route->options : unknown_;
}

Result<ApiResponse> Router::answer(ApiRequest request, AppContext& app, std::string& allow) const {
  const auto raw = split_path(request.path);  // segments still percent-encoded
  std::vector<std::string> params;
  if (const Route* route = find(request.method, raw, params, &allow)) {
    if (auto refused = unknown_parameter(request, route->options)) return *refused;
    request.params = std::move(params);
    try {
      return route->handler(request, app);
    } catch (const std::exception& e) {  // a bug must answer 500, never take the server down
      return make_error(ErrorKind::internal, "internal", std::string("internal error: ") + e.what());
    }
  }
  if (!allow.empty() && request.method == "OPTIONS") {
    // RFC 9110 OPTIONS, and the CORS preflight: the methods the path takes. Whether a browser may go on is decided by
    // the Access-Control-* headers the transport adds (server/http/auth.hpp cors_headers), present only for an allowed
    // Origin.
    ApiResponse r = text_response(204, "text/plain", "");
    r.headers.emplace_back("Allow", allow + ", OPTIONS");
    return r;
  }
  if (!allow.empty()) {
    return make_error(ErrorKind::invalid_input, "method_not_allowed",
                      request.method + " is not allowed on " + request.path);
  }
  return make_error(ErrorKind::not_found, "no_route", "no such resource: " + request.path);
}

ApiResponse Router::dispatch(ApiRequest request, AppContext& app) const {
  std::string allow;  // the methods the path takes, when it matched a route of another method
  auto answered = answer(std::move(request), app, allow);
  if (answered) return std::move(answered).value();
  // The one place where a handler's (or the router's) Error becomes an HTTP answer.
  auto r = error_response(answered.error());
  if (answered.error().code == "method_not_allowed") {
    r.status = 405;
    r.headers.emplace_back("Allow", allow);
  }
  return r;
}

}  // namespace perftriage::server
