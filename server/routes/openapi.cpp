// GET /api/v1/openapi.json: the OpenAPI 3.1 description of every route, the checked-in server/routes/openapi.json
// embedded at build time (cmake/EmbedText.cmake). tests/server/routes/openapi_test.cpp checks it against
// Router::table() in both directions (every route documented, every documented operation routed, the same scope), so
// the two cannot drift.
#include "server/openapi_embedded.hpp"
#include "server/app/app_context.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

ApiResponse get_openapi(const ApiRequest&, AppContext&) {
  auto r = text_response(200, "application/json", std::string(kOpenApiJson));
  r.headers.emplace_back("Cache-Control", "no-cache");
  return r;
}

}  // namespace

void register_openapi_routes(Router& router) {
  router.add("GET", "/api/v1/openapi.json", get_openapi, RouteOptions::on(Lane::io).require(Scope::none));
}

}  // namespace perftriage::server
