// The dashboard's assets from web/: GET / and GET /web/{file}. Names are looked up in the
// directory listing, never joined from the request, so no path can escape web/.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "server/app/app_context.hpp"
#include "server/http/install_paths.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

std::string content_type_for(const std::filesystem::path& p) {
  const auto ext = p.extension().string();
  if (ext == ".html") return "text/html; charset=utf-8";
  if (ext == ".css") return "text/css; charset=utf-8";
  if (ext == ".js" || ext == ".mjs") return "text/javascript; charset=utf-8";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".json") return "application/json";
  return "application/octet-stream";
}

ApiResponse serve_file(AppContext& app, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path dir = resolve_web_dir(app.settings().web_dir);  // installed share/perftriage/web, else the source
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (!entry.is_regular_file() || entry.path().filename().string() != name) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream body;
    body << in.rdbuf();
    auto r = text_response(200, content_type_for(entry.path()), body.str());
    r.headers.emplace_back("Cache-Control", "no-cache");
    return r;
  }
  return error_response(make_error(ErrorKind::not_found, "no_asset", "no such asset: " + name));
}

}  // namespace

void register_static_routes(Router& router) {
  router.add("GET", "/", [](const ApiRequest&, AppContext& app) { return serve_file(app, "index.html"); },
             RouteOptions::on(Lane::io).require(Scope::none));
  router.add("GET", "/web/{file}", [](const ApiRequest& req, AppContext& app) {
    return serve_file(app, req.params.at(0));
  }, RouteOptions::on(Lane::io).require(Scope::none));
}

}  // namespace perftriage::server
