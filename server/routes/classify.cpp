// POST /api/v1/classify[?name=]: one trace or log in the body (raw, any content type, or one multipart file part);
// answers what `perftriage classify --json FILE` prints. Nothing is stored.
#include "analyzers/trace/classify.hpp"
#include "server/app/app_context.hpp"
#include "server/http/request_file.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

Result<ApiResponse> post_classify(const ApiRequest& req, AppContext&) {
  PT_ASSIGN(auto file, uploaded_file(req, "upload"));
  PT_ASSIGN(auto result, analyzers::trace::classify_bytes(file.bytes(), file.name));
  return json_response(200, result);
}

}  // namespace

// Stores nothing, so a read (public by default); only a trace's or log's content types.
void register_classify_routes(Router& router) {
  router.add("POST", "/api/v1/classify", post_classify,
             RouteOptions::on(Lane::compute, 0)
                 .require(Scope::read)
                 .accept({"application/json", "application/gzip", "application/x-gzip", "application/octet-stream",
                          "text/plain", "multipart/form-data"})
                 .params({"name"}));
}

}  // namespace perftriage::server
