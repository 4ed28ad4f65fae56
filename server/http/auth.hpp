#pragma once
// Authentication and authorization of API requests.
// Clients send `Authorization: Bearer TOKEN`; tokens are created with `perftriage token create` and stored as salted
// hashes only (schema/token_store.hpp). The decision is made from the request head, before any of the body is read,
// so a refused request stores nothing and costs nothing.
#include <optional>
#include <string>

#include "common/result.hpp"
#include "server/http/http_types.hpp"
#include "server/http/router.hpp"

namespace perftriage::server {

class AppContext;

// nullopt = the request may run (and `head.token_name` names the token that allowed it, if any).
// Otherwise the error to answer: 401 (missing / unknown / revoked / expired token; the response carries
// WWW-Authenticate), 403 (the token lacks the scope), 415 (a content type the route does not accept).
std::optional<Error> authorize(ApiRequest& head, const RouteOptions& route, AppContext& app);

// Headers every response to `head` carries for CORS (empty unless the Origin is in the configured allow-list).
std::vector<std::pair<std::string, std::string>> cors_headers(const ApiRequest& head, AppContext& app);

std::string_view scope_name(Scope s);
std::optional<Scope> parse_scope(std::string_view name);

}  // namespace perftriage::server
