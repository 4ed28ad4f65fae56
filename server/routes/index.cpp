// GET /api/v1: the API's index (the dashboard's footer links here): name, version, every route with its method,
// pattern and scope (Router::table()), and where the OpenAPI description is. Public (Scope::none), like that document.
#include <memory>

#include "server/app/app_context.hpp"
#include "server/http/auth.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

json index_json(const std::vector<const RouteOptions*>& table) {
  json routes = json::array();
  for (const RouteOptions* route : table) {
    routes.push_back({{"method", route->method}, {"pattern", route->pattern}, {"scope", scope_name(route->scope)}});
  }
  return {{"name", "perftriage"},
          {"version", build_version()},
          {"openapi", "/api/v1/openapi.json"},
          {"routes", std::move(routes)}};
}

}  // namespace

// The table as it stands once this route is added: make_router() registers it last, so it lists every route.
void register_index_routes(Router& router) {
  auto body = std::make_shared<json>();
  router.add(
      "GET", "/api/v1",
      [body](const ApiRequest&, AppContext&) -> Result<ApiResponse> { return json_response(200, *body); },
      RouteOptions::on(Lane::io).require(Scope::none).params({}));
  *body = index_json(router.table());
}

}  // namespace perftriage::server
