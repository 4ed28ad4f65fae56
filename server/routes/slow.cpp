// GET /api/v1/slow?run=|platform=&threshold=&format=json|md|csv[&findings=1]
// JSON cases carry the findings of the artifacts attached to them; findings=1 adds a markdown column. A platform's run
// is its newest with performance results (404 no_performance_run when it has none); a run asked for by key that has
// none is answered, its JSON envelope with "warning": {"code": "no_performance_results", "message"}.
#include "schema/data_stamps.hpp"
#include "server/app/app_context.hpp"
#include "server/app/queries.hpp"
#include "server/app/tables.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

bool is_true(const std::string& v) { return v == "1" || v == "true" || v == "yes"; }

Result<ApiResponse> get_slow(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const Format format, parse_format(req.q("format"), Format::json));
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto slow, find_slow_cases(*store, req.q("run"), req.q("platform"), threshold));
  auto table = render_slow_cases(slow, format, {.findings_column = is_true(req.q("findings")), .envelope = true});
  auto res = text_response(200, std::move(table.content_type), std::move(table.body));
  // A run by key reads that run; a platform, its latest run (any of its runs may become it); neither, the latest of
  // every platform.
  if (!req.q("run").empty()) {
    for (const auto& run : slow.runs) res.data_scopes.push_back(schema::stamp_scope_run(run.id));
  } else if (!req.q("platform").empty()) {
    res.data_scopes = {schema::stamp_scope_platform(req.q("platform"))};
  } else {
    res.data_scopes = {std::string(schema::kStampAll)};
  }
  return res;
}

}  // namespace

void register_slow_routes(Router& router) {
  router.add("GET", "/api/v1/slow", get_slow,
             RouteOptions{}.params({"run", "platform", "threshold", "format", "findings"}));
}

}  // namespace perftriage::server
