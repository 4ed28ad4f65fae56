#include "schema/run_delete.hpp"
#include "server/app/app_context.hpp"
#include "server/app/queries.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

ApiResponse list_runs(const ApiRequest& req, AppContext& app) {
  auto threshold = parse_threshold(req.q("threshold"), app.settings().slow_threshold);
  if (!threshold) return error_response(threshold.error());
  auto store = app.store();
  if (!store) return error_response(store.error());
  auto runs = (*store)->list_runs(req.q("platform"));
  if (!runs) return error_response(runs.error());
  json out = json::array();
  for (const auto& run : *runs) {
    auto counts = (*store)->run_counts(run.id, *threshold);
    if (!counts) return error_response(counts.error());
    out.push_back(run_json(run, *counts));
  }
  return json_response(200, {{"runs", out}});
}

ApiResponse get_run(const ApiRequest& req, AppContext& app) {
  auto threshold = parse_threshold(req.q("threshold"), app.settings().slow_threshold);
  if (!threshold) return error_response(threshold.error());
  auto store = app.store();
  if (!store) return error_response(store.error());
  auto runs = resolve_runs(**store, req.params.at(0), {});
  if (!runs) return error_response(runs.error());
  const auto& run = runs->front();
  auto counts = (*store)->run_counts(run.id, *threshold);
  if (!counts) return error_response(counts.error());
  auto files = (*store)->run_files(run.id);
  if (!files) return error_response(files.error());
  auto missing = (*store)->missing(run);
  if (!missing) return error_response(missing.error());
  auto previous = (*store)->previous_run(run);
  if (!previous) return error_response(previous.error());
  json j = run_json(run, *counts);
  j["files"] = json::array();
  for (const auto& f : *files) j["files"].push_back(file_json(f));
  j["missing"] = json::array();
  for (const auto& m : *missing) j["missing"].push_back(missing_json(m));
  j["counts"]["missing"] = missing->size();
  j["previous_run"] = *previous ? json((*previous)->meta.key) : json();
  return json_response(200, j);
}

// DELETE /api/v1/runs/{key} (admin): the run and everything hanging off it, in one transaction, audited
// (schema/run_delete.hpp). 200 with what was deleted; 404 naming an unknown key. The key is exact: never a tag.
ApiResponse delete_run(const ApiRequest& req, AppContext& app) {
  auto store = app.store();
  if (!store) return error_response(store.error());
  const std::string actor = req.token_name.empty() ? std::string("anonymous") : req.token_name;
  auto deleted = schema::delete_run((*store)->db(), req.params.at(0), actor);
  if (!deleted) return error_response(deleted.error());
  return json_response(200, schema::to_json(*deleted));
}

}  // namespace

void register_run_routes(Router& router) {
  router.add("GET", "/api/v1/runs", list_runs);
  router.add("GET", "/api/v1/runs/{key}", get_run);
  router.add("DELETE", "/api/v1/runs/{key}", delete_run, RouteOptions::on(Lane::heavy).require(Scope::admin));
}

}  // namespace perftriage::server
