// GET /api/v1/compare?base=KEY|previous|TAG&target=KEY&format=json|md|csv&regression=&red=&improvement=
// base defaults to "previous" (the run of the target's platform just before it).
#include "analyzers/compare/case_compare.hpp"
#include "server/app/app_context.hpp"
#include "server/app/comparison.hpp"
#include "server/app/tables.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

Result<ApiResponse> get_compare(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const Format format, parse_format(req.q("format"), Format::json));
  PT_ASSIGN(const auto thresholds,
            analyzers::compare::parse_thresholds(req.q("regression"), req.q("red"), req.q("improvement")));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(const auto comparison, compare_runs(*store, req.q("base", "previous"), req.q("target"), thresholds));
  auto table = render_comparison(comparison, thresholds, format);
  return text_response(200, std::move(table.content_type), std::move(table.body));
}

}  // namespace

void register_compare_routes(Router& router) {
  router.add("GET", "/api/v1/compare", get_compare,
             RouteOptions{}.params({"base", "target", "format", "regression", "red", "improvement"}));
}

}  // namespace perftriage::server
