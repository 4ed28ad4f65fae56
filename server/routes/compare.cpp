// GET /api/v1/compare?base=KEY|previous|TAG&target=KEY&format=json|md|csv&regression=&red=&improvement=
// base defaults to "previous" (the run of the target's platform just before it).
#include "analyzers/compare/case_compare.hpp"
#include "schema/data_stamps.hpp"
#include "server/app/app_context.hpp"
#include "server/app/comparison.hpp"
#include "server/app/tables.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

// What a comparison read: both runs, and what chose the base. "previous" is the platform's order of runs; any other
// rule is a tag of the platform's runs first, a run key after (schema/history_store.cpp resolve_base_run), so a run
// that gains or loses that tag could change the base.
std::vector<std::string> compare_scopes(const Comparison& c, const std::string& base_rule) {
  std::vector<std::string> scopes{schema::stamp_scope_run(c.target.id), schema::stamp_scope_run(c.base.id)};
  scopes.push_back(base_rule == "previous" ? schema::stamp_scope_platform(c.target.meta.platform)
                                           : schema::stamp_scope_tag(c.target.meta.platform, base_rule));
  return scopes;
}

Result<ApiResponse> get_compare(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const Format format, parse_format(req.q("format"), Format::json));
  PT_ASSIGN(const auto thresholds,
            analyzers::compare::parse_thresholds([&](std::string_view n) { return req.q(std::string(n)); }));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(const auto comparison, compare_runs(*store, req.q("base", "previous"), req.q("target"), thresholds));
  auto table = render_comparison(comparison, thresholds, format);
  auto res = text_response(200, std::move(table.content_type), std::move(table.body));
  res.data_scopes = compare_scopes(comparison, req.q("base", "previous"));
  return res;
}

}  // namespace

void register_compare_routes(Router& router) {
  router.add(
      "GET", "/api/v1/compare", get_compare,
      RouteOptions{}.params({"base", "target", "format", "regression", "red", "improvement", "compile_regression",
                             "compile_improvement", "memory_regression", "memory_improvement"}));
}

}  // namespace perftriage::server
