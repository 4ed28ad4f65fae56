// GET /api/v1/slow?run=|platform=&threshold=&format=json|md|csv[&findings=1]
// JSON cases carry the findings of the artifacts attached to them; findings=1 adds a markdown column.
#include "analyzers/flags/slow_table.hpp"
#include "server/app/app_context.hpp"
#include "server/app/case_findings.hpp"
#include "server/app/queries.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

bool is_true(const std::string& v) { return v == "1" || v == "true" || v == "yes"; }

ApiResponse get_slow(const ApiRequest& req, AppContext& app) {
  auto threshold = parse_threshold(req.q("threshold"), app.settings().slow_threshold);
  if (!threshold) return error_response(threshold.error());
  auto store = app.store();
  if (!store) return error_response(store.error());
  auto runs = resolve_runs(**store, req.q("run"), req.q("platform"));
  if (!runs) return error_response(runs.error());
  auto rows = slow_cases(**store, *runs, *threshold);
  if (!rows) return error_response(rows.error());
  const std::string format = req.q("format", "json");
  if (format == "csv") return text_response(200, "text/csv; charset=utf-8", analyzers::slow_table_csv(*rows));
  if (format == "md" && !is_true(req.q("findings"))) {
    return text_response(200, "text/markdown; charset=utf-8", analyzers::slow_table_markdown(*rows));
  }
  if (format != "json" && format != "md") {
    return error_response(make_error(ErrorKind::invalid_input, "bad_format", "format must be json, md or csv", {}, 0,
                                     "format"));
  }
  auto findings = findings_for_rows((*store)->db(), *runs, *rows);
  if (!findings) return error_response(findings.error());
  if (format == "md") {
    return text_response(200, "text/markdown; charset=utf-8", slow_table_markdown_with_findings(*rows, *findings));
  }
  nlohmann::json runs_json = nlohmann::json::array();
  for (const auto& r : *runs) runs_json.push_back(r.meta.key);
  nlohmann::json cases = analyzers::slow_table_json(*rows);
  for (std::size_t i = 0; i < cases.size(); ++i) cases[i]["findings"] = findings_json((*findings)[i]);
  return json_response(200, {{"runs", runs_json}, {"threshold", *threshold}, {"cases", cases}});
}

}  // namespace

void register_slow_routes(Router& router) { router.add("GET", "/api/v1/slow", get_slow); }

}  // namespace perftriage::server
