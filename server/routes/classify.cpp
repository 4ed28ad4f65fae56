// POST /api/v1/classify[?name=]: one trace or log in the body (raw, any content type, or one multipart file part);
// answers what `perftriage classify --json FILE` prints. Nothing is stored.
#include "analyzers/trace/classify.hpp"
#include "server/app/app_context.hpp"
#include "server/app/artifact_service.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

ApiResponse post_classify(const ApiRequest& req, AppContext&) {
  auto file = uploaded_file(req, "upload");
  if (!file) return error_response(file.error());
  auto result = analyzers::trace::classify_bytes(file->bytes(), file->name);
  if (!result) return error_response(result.error());
  return json_response(200, *result);
}

}  // namespace

// Stores nothing, so a read (public by default); only a trace's or log's content types.
void register_classify_routes(Router& router) {
  router.add("POST", "/api/v1/classify", post_classify,
             RouteOptions::on(Lane::heavy, 0)
                 .require(Scope::read)
                 .accept({"application/json", "application/gzip", "application/x-gzip", "application/octet-stream",
                          "text/plain", "multipart/form-data"}));
}

}  // namespace perftriage::server
