#pragma once
// Calls a route in-process, as the transport would: method, "path?query", body and content type.
#include <string>
#include <utility>

#include "server/http/http_types.hpp"
#include "server/http/router.hpp"

namespace perftriage::testing {

// A request as the transport would make it from "METHOD path?query".
inline server::ApiRequest request_of(const std::string& method, const std::string& target) {
  server::ApiRequest req;
  req.method = method;
  const auto q = target.find('?');
  req.path = target.substr(0, q);
  if (q != std::string::npos) req.query = server::parse_query(target.substr(q + 1));
  return req;
}

inline server::ApiResponse call_route(const server::Router& router, server::AppContext& app, const std::string& method,
                                      const std::string& target, const std::string& body,
                                      const std::string& content_type) {
  server::ApiRequest req = request_of(method, target);
  if (!content_type.empty()) req.headers["content-type"] = content_type;
  req.body = body;
  return router.dispatch(std::move(req), app);
}

}  // namespace perftriage::testing
