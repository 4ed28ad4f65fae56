// GET /api/v1/runs?platform=&threshold=&format=json|md|csv&limit=&cursor=   a page of runs, newest first, with counts
// GET /api/v1/runs/{key}?threshold=                          one run: its files, missing models, previous run
// DELETE /api/v1/runs/{key}                                  (admin) the run and everything hanging off it
#include "schema/run_delete.hpp"
#include "schema/data_stamps.hpp"
#include "server/app/app_context.hpp"
#include "server/app/queries.hpp"
#include "server/app/tables.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

// A page of GET /runs: the newest 100 runs unless `limit` says otherwise, at most 1,000 (a page is one range read of
// runs plus each run's stored summary, whatever the history's length).
constexpr std::int64_t kDefaultPage = 100;
constexpr std::int64_t kMaxPage = 1000;

Result<ApiResponse> list_runs(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const Format format, parse_format(req.q("format"), Format::json));
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  PT_ASSIGN(const std::int64_t limit, parse_limit(req.q("limit"), "limit", kDefaultPage, kMaxPage));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(const auto page, list_runs_page_with_counts(*store, req.q("platform"), threshold, limit, req.q("cursor")));
  auto table = render_runs(page.rows, format, /*envelope=*/true, &page.next_cursor);
  auto res = text_response(200, std::move(table.content_type), std::move(table.body));
  res.data_scopes = {req.q("platform").empty() ? std::string(schema::kStampAll)
                                               : schema::stamp_scope_platform(req.q("platform"))};
  // Every format says where the next page is; JSON also in its body.
  if (!page.next_cursor.empty()) {
    std::string next = "/api/v1/runs?cursor=" + url_encode(page.next_cursor) + "&limit=" + std::to_string(limit);
    for (const char* name : {"platform", "threshold", "format"}) {
      if (!req.q(name).empty()) next += std::string("&") + name + "=" + url_encode(req.q(name));
    }
    res.headers.emplace_back("Link", "<" + next + ">; rel=\"next\"");
  }
  return res;
}

Result<ApiResponse> get_run(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(const auto run, run_detail(*store, req.params.at(0), threshold));
  auto res = json_response(200, run.body);
  res.data_scopes = {schema::stamp_scope_platform(run.platform)};  // the run, and which run came before it
  return res;
}

// DELETE /api/v1/runs/{key} (admin): the run and everything hanging off it, in one transaction, audited
// (schema/run_delete.hpp). 200 with what was deleted; 404 naming an unknown key. The key is exact: never a tag.
Result<ApiResponse> delete_run(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(auto store, app.store());
  const std::string actor = req.token_name.empty() ? std::string("anonymous") : req.token_name;
  PT_ASSIGN(const auto deleted, schema::delete_run(store->db(), req.params.at(0), actor));
  return json_response(200, schema::to_json(deleted));
}

}  // namespace

void register_run_routes(Router& router) {
  router.add("GET", "/api/v1/runs", list_runs,
             RouteOptions{}.params({"platform", "threshold", "format", "limit", "cursor"}));
  router.add("GET", "/api/v1/runs/{key}", get_run, RouteOptions{}.params({"threshold"}));
  router.add("DELETE", "/api/v1/runs/{key}", delete_run,
             RouteOptions::on(Lane::heavy).require(Scope::admin).params({}));
}

}  // namespace perftriage::server
