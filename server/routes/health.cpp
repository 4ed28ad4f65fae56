#include "schema/migrate.hpp"
#include "server/app/app_context.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {

void register_health_routes(Router& router) {
  router.add("GET", "/healthz", [](const ApiRequest&, AppContext& app) {
    auto store = app.store();
    if (!store) return error_response(store.error());
    auto st = schema::Statement::prepare((*store)->db(), "PRAGMA user_version");
    if (!st) return error_response(st.error());
    auto row = st->step();
    if (!row) return error_response(row.error());
    return json_response(200, {{"status", "ok"}, {"schema_version", st->int64(0)}});
  }, RouteOptions::on(Lane::io).require(Scope::none));
}

}  // namespace perftriage::server
