// GET /api/v1/triage?platform=&state=: every case that has been slower than eager on the platform, with its triage
// state (schema/triage_store.hpp).
// GET /api/v1/triage/{platform}/{suite}/{dtype}/{mode}/{model}[?config=]: one case's state and its history.
// PUT /api/v1/triage/{platform}/{suite}/{dtype}/{mode}/{model}[?config=] {"state", "issue"?, "reason"?} (scope
// triage): a person's decision, recorded with the token's name.
#include "common/bounded_json.hpp"
#include "schema/data_stamps.hpp"
#include "schema/triage_store.hpp"
#include "server/app/app_context.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxTriageBytes = 16 * 1024;

Error bad(std::string code, std::string message, std::string field = {}) {
  return make_error(ErrorKind::invalid_input, std::move(code), std::move(message), {}, 0, std::move(field));
}

json case_json(const schema::TriageCase& c) {
  return {{"platform", c.platform},
          {"suite", c.suite},
          {"dtype", c.dtype},
          {"mode", c.mode},
          {"config", c.config},
          {"model", c.model},
          {"state", c.state},
          {"issue", c.issue.empty() ? json() : json(c.issue)},
          {"reason", c.reason},
          {"since_run", c.since_run},
          {"updated_by", c.updated_by},
          {"updated_at", c.updated_at},
          {"latest_run", c.latest_run},
          {"latest_speedup", c.latest_speedup},
          {"worst_speedup", c.worst_speedup ? json(*c.worst_speedup) : json()}};
}

schema::TriageKey key_of(const ApiRequest& req) {
  return {req.params.at(0), req.params.at(1), req.params.at(2), req.params.at(3), req.params.at(4), req.q("config")};
}

Result<ApiResponse> list_triage(const ApiRequest& req, AppContext& app) {
  const std::string platform = req.q("platform");
  if (platform.empty()) return bad("missing_platform", "platform is required", "platform");
  const std::string state = req.q("state");
  if (!state.empty() && !schema::is_triage_state(state)) {
    return bad("bad_state", "state is new, acknowledged, expected, wontfix, fixed or regressed", "state");
  }
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(const auto cases, schema::list_triage(store->db(), platform, state));
  json out = json::array();
  for (const auto& c : cases) out.push_back(case_json(c));
  auto res = json_response(200, {{"platform", platform}, {"cases", out}});
  res.data_scopes = {schema::stamp_scope_platform(platform)};
  return res;
}

Result<ApiResponse> get_case(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(auto store, app.store());
  const auto key = key_of(req);
  PT_ASSIGN(const auto found, schema::find_triage(store->db(), key));
  if (!found) return make_error(ErrorKind::not_found, "not_slow", "the case has never been slower than eager there");
  PT_ASSIGN(const auto history, schema::triage_history(store->db(), key));
  json changes = json::array();
  for (const auto& h : history) changes.push_back(schema::to_json(h));
  json out = case_json(*found);
  out["history"] = changes;
  auto res = json_response(200, out);
  res.data_scopes = {schema::stamp_scope_platform(key.platform)};
  return res;
}

Result<ApiResponse> put_case(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const json j, parse_bounded_json(req.bytes(), "triage", JsonLimits::bytes(kMaxTriageBytes)));
  if (!j.is_object() || !j.contains("state") || !j["state"].is_string()) {
    return bad("missing_field", "\"state\" (a string) is required", "state");
  }
  auto text = [&](const char* field) -> Result<std::string> {
    if (!j.contains(field) || j[field].is_null()) return std::string();
    if (!j[field].is_string()) return bad("bad_field", std::string("\"") + field + "\" must be a string", field);
    return j[field].get<std::string>();
  };
  PT_ASSIGN(const std::string issue, text("issue"));
  PT_ASSIGN(const std::string reason, text("reason"));
  const std::string state = j["state"].get<std::string>();  // checked with issue and reason by set_triage
  PT_ASSIGN(auto store, app.store());
  auto& db = store->db();
  PT_ASSIGN(auto tx, schema::Transaction::begin(db));
  const std::string who = req.token_name.empty() ? std::string("anonymous") : req.token_name;
  PT_ASSIGN(const auto c, schema::set_triage(db, key_of(req), state, issue, reason, who));
  PT_TRY(tx.commit());
  return json_response(200, case_json(c));
}

}  // namespace

void register_triage_routes(Router& router) {
  router.add("GET", "/api/v1/triage", list_triage, RouteOptions{}.params({"platform", "state"}));
  router.add("GET", "/api/v1/triage/{platform}/{suite}/{dtype}/{mode}/{model}", get_case,
             RouteOptions{}.params({"config"}));
  router.add("PUT", "/api/v1/triage/{platform}/{suite}/{dtype}/{mode}/{model}", put_case,
             RouteOptions::on(Lane::heavy, kMaxTriageBytes)
                 .require(Scope::triage)
                 .accept({"application/json"})
                 .params({"config"}));
}

}  // namespace perftriage::server
