// GET /api/v1/compare?base=KEY|previous|TAG&target=KEY&format=json|md|csv&regression=&red=&improvement=
// base defaults to "previous" (the run of the target's platform just before it).
#include "analyzers/compare/aggregates.hpp"
#include "analyzers/compare/case_compare.hpp"
#include "analyzers/compare/compare_render.hpp"
#include "schema/history_store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/comparison.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

namespace cmp = analyzers::compare;

ApiResponse get_compare(const ApiRequest& req, AppContext& app) {
  const std::string format = req.q("format", "json");
  if (format != "json" && format != "md" && format != "csv") {
    return error_response(
        make_error(ErrorKind::invalid_input, "bad_format", "format must be json, md or csv", {}, 0, "format"));
  }
  auto thresholds = cmp::parse_thresholds(req.q("regression"), req.q("red"), req.q("improvement"));
  if (!thresholds) return error_response(thresholds.error());
  auto store = app.store();
  if (!store) return error_response(store.error());
  auto comparison = compare_runs(**store, req.q("base", "previous"), req.q("target"), *thresholds);
  if (!comparison) return error_response(comparison.error());
  const auto& cases = comparison->cases;
  const auto& aggregates = comparison->aggregates;
  const auto& base = comparison->base.meta.key;
  const auto& target = comparison->target.meta.key;
  if (format == "md") {
    return text_response(200, "text/markdown; charset=utf-8",
                         cmp::compare_markdown(base, target, *thresholds, cases, aggregates));
  }
  if (format == "csv") return text_response(200, "text/csv; charset=utf-8", cmp::compare_csv(cases));
  return json_response(200, cmp::compare_json(base, target, *thresholds, cases, aggregates));
}

}  // namespace

void register_compare_routes(Router& router) { router.add("GET", "/api/v1/compare", get_compare); }

}  // namespace perftriage::server
