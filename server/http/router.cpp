#include "server/http/router.hpp"

#include <exception>

namespace perftriage::server {
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    auto j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    out.emplace_back(path.substr(i, j - i));
    i = j;
  }
  return out;
}

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

ApiResponse Router::dispatch(ApiRequest request, AppContext& app) const {
  const auto raw = split_path(request.path);  // segments still percent-encoded
  std::string allow;
  std::vector<std::string> params;
  if (const Route* route = find(request.method, raw, params, &allow)) {
    request.params = std::move(params);
    try {
      return route->handler(request, app);
    } catch (const std::exception& e) {  // a bug must answer 500, never take the server down
      return error_response(make_error(ErrorKind::internal, "internal", std::string("internal error: ") + e.what()));
    }
  }
  if (!allow.empty() && request.method == "OPTIONS") {
    // RFC 9110 OPTIONS, and the CORS preflight: the methods the path takes. Whether a browser may go on is decided by
    // the Access-Control-* headers the transport adds (server/http/auth.hpp cors_headers), present only for an allowed
    // Origin.
    ApiResponse r{204, "text/plain", "", {}};
    r.headers.emplace_back("Allow", allow + ", OPTIONS");
    return r;
  }
  if (!allow.empty()) {
    auto r = error_response(make_error(ErrorKind::invalid_input, "method_not_allowed",
                                       request.method + " is not allowed on " + request.path));
    r.status = 405;
    r.headers.emplace_back("Allow", allow);
    return r;
  }
  return error_response(make_error(ErrorKind::not_found, "no_route", "no such resource: " + request.path));
}

}  // namespace perftriage::server
