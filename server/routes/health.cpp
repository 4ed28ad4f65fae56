// GET /healthz: liveness and the database's schema version; public (Scope::none), answered on the I/O thread.
#include "schema/migrate.hpp"
#include "server/app/app_context.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

Result<ApiResponse> get_health(const ApiRequest&, AppContext& app) {
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(const int version, schema::schema_version(store->db()));
  return json_response(200, {{"status", "ok"}, {"schema_version", version}});
}

}  // namespace

void register_health_routes(Router& router) {
  router.add("GET", "/healthz", get_health, RouteOptions::on(Lane::io).require(Scope::none));
}

}  // namespace perftriage::server
