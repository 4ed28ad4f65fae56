// GET /api/v1/runs/{key}/report.md?threshold=        the slow-case tracking issue of a run
// GET /api/v1/report.md?base=&target=&kind=regressions[&regression=&red=&improvement=]
//   the release-regression tracking issue (base defaults to "previous"); kind=slow&run=KEY is the slow one.
// Both are markdown (format=md, the default, is the only format a report has).
#include "analyzers/compare/case_compare.hpp"
#include "server/app/app_context.hpp"
#include "server/app/queries.hpp"
#include "server/app/slow_report.hpp"
#include "server/app/tables.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

ApiResponse answer(Rendered report) {
  return text_response(200, std::move(report.content_type), std::move(report.body));
}

Result<ApiResponse> slow_report(const ApiRequest& req, const std::string& key, AppContext& app) {
  PT_TRY(parse_format(req.q("format"), Format::md, {Format::md}));
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto body, server::slow_report(*store, key, threshold));
  return answer(render_report(std::move(body)));
}

Result<ApiResponse> get_run_report(const ApiRequest& req, AppContext& app) {
  return slow_report(req, req.params.at(0), app);
}

Result<ApiResponse> get_report(const ApiRequest& req, AppContext& app) {
  const std::string kind = req.q("kind", "regressions");
  if (kind == "slow") return slow_report(req, req.q("run"), app);
  if (kind != "regressions") {
    return make_error(ErrorKind::invalid_input, "bad_kind", "kind must be regressions or slow", {}, 0, "kind");
  }
  PT_TRY(parse_format(req.q("format"), Format::md, {Format::md}));
  PT_ASSIGN(const auto thresholds,
            analyzers::compare::parse_thresholds([&](std::string_view n) { return req.q(std::string(n)); }));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto body, regression_report(*store, req.q("base", "previous"), req.q("target"), thresholds));
  return answer(render_report(std::move(body)));
}

}  // namespace

void register_report_routes(Router& router) {
  router.add("GET", "/api/v1/runs/{key}/report.md", get_run_report, RouteOptions{}.params({"threshold", "format"}));
  router.add("GET", "/api/v1/report.md", get_report,
             RouteOptions{}.params({"kind", "base", "target", "run", "threshold", "regression", "red", "improvement",
                                    "compile_regression", "compile_improvement", "memory_regression",
                                    "memory_improvement", "format"}));
}

}  // namespace perftriage::server
