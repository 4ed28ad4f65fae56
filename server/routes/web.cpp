// GET / and GET /web/{file}: the dashboard's assets from web/ (server/http/static_files.hpp finds and reads them).
// Public (Scope::none) and answered on the I/O thread.
#include "server/http/static_files.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

Result<ApiResponse> get_index_html(const ApiRequest&, AppContext& app) { return web_file(app, "index.html"); }

Result<ApiResponse> get_web_file(const ApiRequest& req, AppContext& app) { return web_file(app, req.params.at(0)); }

}  // namespace

void register_web_routes(Router& router) {
  router.add("GET", "/", get_index_html, RouteOptions::on(Lane::io).require(Scope::none));
  router.add("GET", "/web/{file}", get_web_file, RouteOptions::on(Lane::io).require(Scope::none));
}

}  // namespace perftriage::server
