// GET /api/v1/runs/{key}/report.md?threshold=        the slow-case tracking issue of a run
// GET /api/v1/report.md?base=&target=&kind=regressions[&regression=&red=&improvement=]
//   the release-regression tracking issue (base defaults to "previous"); kind=slow&run=KEY is the slow one.
#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"
#include "analyzers/compare/report.hpp"
#include "schema/history_store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/comparison.hpp"
#include "server/app/queries.hpp"
#include "server/routes/routes.hpp"
#include "server/app/slow_report.hpp"

namespace perftriage::server {
namespace {

namespace cmp = analyzers::compare;
constexpr const char* kMarkdown = "text/markdown; charset=utf-8";

ApiResponse slow_report(const std::string& key, const std::string& threshold_text, AppContext& app) {
  auto threshold = parse_threshold(threshold_text, app.settings().slow_threshold);
  if (!threshold) return error_response(threshold.error());
  auto store = app.store();
  if (!store) return error_response(store.error());
  auto body = server::slow_report(**store, key, *threshold);
  if (!body) return error_response(body.error());
  return text_response(200, kMarkdown, std::move(*body));
}

ApiResponse get_run_report(const ApiRequest& req, AppContext& app) {
  return slow_report(req.params.at(0), req.q("threshold"), app);
}

ApiResponse get_report(const ApiRequest& req, AppContext& app) {
  const std::string kind = req.q("kind", "regressions");
  if (kind == "slow") return slow_report(req.q("run"), req.q("threshold"), app);
  if (kind != "regressions") {
    return error_response(
        make_error(ErrorKind::invalid_input, "bad_kind", "kind must be regressions or slow", {}, 0, "kind"));
  }
  auto thresholds = cmp::parse_thresholds(req.q("regression"), req.q("red"), req.q("improvement"));
  if (!thresholds) return error_response(thresholds.error());
  auto store = app.store();
  if (!store) return error_response(store.error());
  auto c = compare_runs(**store, req.q("base", "previous"), req.q("target"), *thresholds);
  if (!c) return error_response(c.error());
  return text_response(200, kMarkdown,
                       cmp::regression_report_markdown(c->base, c->target, c->cases, c->aggregates, *thresholds));
}

}  // namespace

void register_report_routes(Router& router) {
  router.add("GET", "/api/v1/runs/{key}/report.md", get_run_report);
  router.add("GET", "/api/v1/report.md", get_report);
}

}  // namespace perftriage::server
