// GET /api/v1/explain/{platform}/{suite}/{dtype}/{mode}/{model}[?config=&threshold=&format=json|md]: one case end to
// end (server/app/explain.hpp): history and change point, the run and file of its newest row, triage state and linked
// issue, every finding with its evidence, and a verdict naming what to attach next; "issues": the open tracker issues
// naming the case (server/app/case_issues.hpp), which the Case page lists.
#include "schema/data_stamps.hpp"
#include "server/app/app_context.hpp"
#include "server/app/case_issues.hpp"
#include "server/app/explain.hpp"
#include "server/app/queries.hpp"
#include "server/app/tables.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

Result<ApiResponse> get_explain(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const Format format, parse_format(req.q("format"), Format::json, {Format::json, Format::md}));
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  PT_ASSIGN(auto store, app.store());
  const schema::TriageKey key{req.params.at(0), req.params.at(1), req.params.at(2),
                              req.params.at(3), req.params.at(4), req.q("config")};
  PT_ASSIGN(auto explained, explain(*store, key, threshold));
  PT_ASSIGN(explained["issues"], case_issues_json(store->db(), key));
  ApiResponse res = format == Format::md
                        ? text_response(200, "text/markdown; charset=utf-8", explain_markdown(explained))
                        : json_response(200, explained);
  res.data_scopes = {schema::stamp_scope_platform(key.platform)};
  return res;
}

}  // namespace

void register_explain_routes(Router& router) {
  router.add("GET", "/api/v1/explain/{platform}/{suite}/{dtype}/{mode}/{model}", get_explain,
             RouteOptions{}.params({"config", "threshold", "format"}));
}

}  // namespace perftriage::server
