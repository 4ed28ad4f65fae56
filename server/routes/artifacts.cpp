// Files attached to a stored case, and the case itself:
//   POST|GET /api/v1/runs/{key}/cases/{suite}/{dtype}/{mode}/{model}/artifacts[?name=&role=&config=]
//   GET      /api/v1/runs/{key}/cases/{suite}/{dtype}/{mode}/{model}[?config=&threshold=]
//   GET      /api/v1/artifacts/{id}, /api/v1/artifacts/{id}/raw
#include <charconv>

#include "analyzers/trace/classify.hpp"
#include "schema/artifact_store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/artifact_service.hpp"
#include "server/app/case_findings.hpp"
#include "server/app/queries.hpp"
#include "server/http/request_file.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

constexpr const char* kCase = "/api/v1/runs/{key}/cases/{suite}/{dtype}/{mode}/{model}";

model::CaseRef case_from(const ApiRequest& req) {
  return {req.params.at(1), req.params.at(2), req.params.at(3), req.params.at(4), req.q("config")};
}

Result<std::int64_t> artifact_id(const std::string& text) {
  std::int64_t id = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, id);
  if (ec != std::errc() || ptr != end || id <= 0) {
    return make_error(ErrorKind::invalid_input, "bad_id", "artifact id must be a positive integer, got '" + text + "'",
                      {}, 0, "id");
  }
  return id;
}

// Content-Disposition takes a quoted ASCII string: anything else becomes '_'.
std::string header_file_name(const std::string& name) {
  std::string out;
  for (unsigned char c : name) out += (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') ? '_' : static_cast<char>(c);
  return out.empty() ? "artifact" : out;
}

json case_json(const CaseLookup& found) {
  return {{"run", found.run.meta.key},      {"platform", found.run.meta.platform}, {"suite", found.case_ref.suite},
          {"dtype", found.case_ref.dtype},  {"mode", found.case_ref.mode},         {"model", found.case_ref.model},
          {"config", found.case_ref.config}};
}

Result<ApiResponse> post_artifact(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(auto file, uploaded_file(req, "artifact"));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto found, find_case(*store, req.params.at(0), case_from(req)));
  PT_ASSIGN(auto outcome, attach_artifact(*store, found, file, req.q("role")));
  json body = artifact_json(outcome.artifact);
  body["status"] = outcome.duplicate ? "duplicate" : "stored";
  return json_response(outcome.duplicate ? 200 : 201, body);
}

Result<ApiResponse> list_artifacts(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto found, find_case(*store, req.params.at(0), case_from(req)));
  PT_ASSIGN(auto artifacts, schema::case_artifacts(store->db(), found.run.id, found.case_ref));
  json body = case_json(found);
  body["artifacts"] = json::array();
  for (const auto& a : artifacts) body["artifacts"].push_back(artifact_json(a));
  return json_response(200, body);
}

std::string artifact_source(const model::ArtifactRecord& a) {
  return "artifact " + std::to_string(a.id) + " " + a.name + (a.role.empty() ? "" : " (" + a.role + ")");
}

Result<ApiResponse> get_case(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto found, find_case(*store, req.params.at(0), case_from(req)));
  PT_ASSIGN(auto artifacts, schema::case_artifacts(store->db(), found.run.id, found.case_ref));

  std::vector<SourcedFinding> all;
  json body = case_json(found);
  body["results"] = json::array();
  for (const auto& row : found.rows) {
    PT_ASSIGN(auto gb,
              analyzers::trace::graph_breaks_from_counts(
                  row.graph_breaks.value_or(-1), row.unique_graph_breaks.value_or(-1), row.unique_graphs.value_or(-1)));
    json r = result_json(row, threshold);
    r["findings"] = json::array({gb});
    body["results"].push_back(std::move(r));
    all.push_back({row.kind + " row (" + row.source + ")", std::move(gb)});
  }
  body["artifacts"] = json::array();
  for (const auto& a : artifacts) {
    json aj = artifact_json(a);
    for (const auto& f : aj["findings"]) all.push_back({artifact_source(a), f});
    body["artifacts"].push_back(std::move(aj));
  }
  body["explanation"] = explain_case(all);
  return json_response(200, body);
}

// The artifact named by the path's {id}: 400 for a malformed id, 404 for an unknown one.
Result<model::ArtifactRecord> artifact_from_param(schema::Database& db, const std::string& param) {
  PT_ASSIGN(const std::int64_t id, artifact_id(param));
  PT_ASSIGN(auto artifact, schema::get_artifact(db, id));
  if (!artifact) {
    return make_error(ErrorKind::not_found, "no_artifact", "no artifact with id " + std::to_string(id), {}, 0, "id");
  }
  return std::move(*artifact);
}

Result<ApiResponse> get_artifact(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto artifact, artifact_from_param(store->db(), req.params.at(0)));
  return json_response(200, artifact_json(artifact));
}

Result<ApiResponse> get_artifact_raw(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto artifact, artifact_from_param(store->db(), req.params.at(0)));
  PT_ASSIGN(auto bytes, schema::artifact_bytes(store->db(), artifact.id));
  if (!bytes) {  // deleted between the two reads
    return make_error(ErrorKind::not_found, "no_artifact", "no artifact with id " + std::to_string(artifact.id), {}, 0,
                      "id");
  }
  const bool gzip = artifact.compression == "gzip";
  ApiResponse res = text_response(200, gzip ? "application/gzip" : "application/octet-stream", std::move(*bytes));
  res.headers.emplace_back("Content-Disposition", "attachment; filename=\"" + header_file_name(artifact.name) + "\"");
  return res;
}

}  // namespace

void register_artifact_routes(Router& router) {
  const std::string c = kCase;
  router.add("POST", c + "/artifacts", post_artifact,
             RouteOptions::on(Lane::heavy, 0)
                 .require(Scope::upload)
                 .accept({"application/json", "application/gzip", "application/x-gzip", "application/octet-stream",
                          "text/plain", "multipart/form-data"})
                 .params({"name", "role", "config"}));
  router.add("GET", c + "/artifacts", list_artifacts, RouteOptions{}.params({"config"}));
  router.add("GET", c, get_case, RouteOptions{}.params({"config", "threshold"}));
  router.add("GET", "/api/v1/artifacts/{id}", get_artifact, RouteOptions{}.params({}));
  router.add("GET", "/api/v1/artifacts/{id}/raw", get_artifact_raw, RouteOptions{}.params({}));
}

}  // namespace perftriage::server
