// GET /api/v1/backlog?platform=&threshold=   the "slower than eager" backlog of a platform, each case with the open
//   tracker issues that name it, and the compile-time and memory regressions between its two newest runs.
#include <map>
#include <tuple>

#include "analyzers/compare/backlog.hpp"
#include "schema/backlog_store.hpp"
#include "schema/data_stamps.hpp"
#include "schema/history_store.hpp"
#include "schema/triage_store.hpp"
#include "server/app/app_context.hpp"
#include "server/app/backlog_changes.hpp"
#include "server/app/case_issues.hpp"
#include "server/app/queries.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

namespace cmp = analyzers::compare;
using nlohmann::json;

json opt(const std::optional<double>& v) { return v ? json(*v) : json(); }

// "Slower than eager" (speedup < 1) is kept current at ingest (schema/backlog_store.hpp); other thresholds
// are computed from every run of the platform below.
Error no_run_for(const std::string& platform) {
  return make_error(ErrorKind::not_found, "no_run", "no run for platform '" + platform + "'", {}, 0, "platform");
}

json maintained_case_json(const schema::BacklogState& e, const schema::TriageCase* t, const CaseIssueIndex& issues) {
  json triage;
  if (t) {
    triage = {{"state", t->state},
              {"issue", t->issue},
              {"reason", t->reason},
              {"since_run", t->since_run},
              {"updated_by", t->updated_by}};
  }
  return {{"triage", std::move(triage)},
          {"suite", e.suite},
          {"dtype", e.dtype},
          {"mode", e.mode},
          {"config", e.config},
          {"model", e.model},
          {"status", e.status},
          {"first_seen", e.first_seen},
          {"last_seen", e.last_seen},
          {"fixed_in", e.fixed_in ? json(*e.fixed_in) : json()},
          {"latest_run", e.latest_run},
          {"latest_speedup", e.latest_speedup},
          {"worst_speedup", opt(e.worst_speedup)},
          {"runs_slow", e.runs_slow},
          {"issues", issues_of(issues, e.suite, e.dtype, e.mode, e.model)}};
}

Result<ApiResponse> maintained_backlog(schema::Store& store, const std::string& platform) {
  PT_ASSIGN(const std::int64_t runs, schema::count_platform_runs(store.db(), platform));
  if (runs == 0) return no_run_for(platform);
  PT_ASSIGN(const auto entries, schema::read_backlog(store.db(), platform));
  // Each case's triage state (schema/triage_store.hpp): the same cases, keyed alike.
  PT_ASSIGN(const auto triage, schema::list_triage(store.db(), platform));
  PT_ASSIGN(const auto issues, case_issue_index(store.db(), platform));
  std::map<std::tuple<std::string, std::string, std::string, std::string, std::string>, const schema::TriageCase*>
      by_case;
  for (const auto& t : triage) by_case[{t.suite, t.dtype, t.mode, t.config, t.model}] = &t;
  json cases = json::array();
  std::map<std::string, std::int64_t> counts{{"open", 0}, {"fixed", 0}, {"failing", 0}};
  std::map<std::string, std::int64_t> by_state;
  for (const auto s : schema::kTriageStates) by_state[std::string(s)] = 0;
  for (const auto& e : entries) {
    ++counts[e.status];
    const auto it = by_case.find({e.suite, e.dtype, e.mode, e.config, e.model});
    const schema::TriageCase* t = it == by_case.end() ? nullptr : it->second;
    if (t) ++by_state[t->state];
    cases.push_back(maintained_case_json(e, t, issues));
  }
  PT_ASSIGN(json latest, latest_resource_regressions(store, platform, issues));
  return json_response(200, {{"platform", platform},
                             {"threshold", 1.0},
                             {"runs", runs},
                             {"open", counts["open"]},
                             {"fixed", counts["fixed"]},
                             {"failing", counts["failing"]},
                             {"by_state", by_state},
                             {"cases", std::move(cases)},
                             {"latest_regressions", std::move(latest)}});
}

// Any other threshold: computed from every run of the platform.
Result<ApiResponse> computed_backlog(schema::Store& store, const std::string& platform, double threshold) {
  PT_ASSIGN(const auto data, schema::backlog_rows(store.db(), platform, threshold));
  if (data.runs.empty()) return no_run_for(platform);
  std::map<std::int64_t, std::size_t> index;
  for (std::size_t i = 0; i < data.runs.size(); ++i) index[data.runs[i].id] = i;
  std::vector<cmp::BacklogObservation> observations;
  observations.reserve(data.rows.size());
  for (const auto& r : data.rows) {
    observations.push_back(
        {index.at(r.run_id), {r.suite, r.dtype, r.mode, r.config, r.model}, r.speedup, r.speedup_text, r.failed});
  }
  const auto entries = cmp::build_backlog(std::move(observations), threshold);
  PT_ASSIGN(const auto issues, case_issue_index(store.db(), platform));
  PT_ASSIGN(json latest, latest_resource_regressions(store, platform, issues));
  const auto key = [&](std::size_t i) { return data.runs[i].meta.key; };
  json cases = json::array();
  std::map<std::string, std::int64_t> counts{{"open", 0}, {"fixed", 0}, {"failing", 0}};
  for (const auto& e : entries) {
    ++counts[e.status];
    cases.push_back({{"suite", e.key.suite},
                     {"dtype", e.key.dtype},
                     {"mode", e.key.mode},
                     {"config", e.key.config},
                     {"model", e.key.model},
                     {"status", e.status},
                     {"first_seen", key(e.first_seen)},
                     {"last_seen", key(e.last_seen)},
                     {"fixed_in", e.fixed_in ? json(key(*e.fixed_in)) : json()},
                     {"latest_run", key(e.latest)},
                     {"latest_speedup", e.latest_speedup_text},
                     {"worst_speedup", opt(e.worst_speedup)},
                     {"runs_slow", e.runs_slow},
                     {"issues", issues_of(issues, e.key.suite, e.key.dtype, e.key.mode, e.key.model)}});
  }
  return json_response(200, {{"platform", platform},
                             {"threshold", threshold},
                             {"runs", data.runs.size()},
                             {"open", counts["open"]},
                             {"fixed", counts["fixed"]},
                             {"failing", counts["failing"]},
                             {"cases", std::move(cases)},
                             {"latest_regressions", std::move(latest)}});
}

Result<ApiResponse> get_backlog(const ApiRequest& req, AppContext& app) {
  const std::string platform = req.q("platform");
  if (platform.empty()) {
    return make_error(ErrorKind::invalid_input, "missing_parameter", "platform is required", {}, 0, "platform");
  }
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto res, threshold == 1.0 ? maintained_backlog(*store, platform)  // the default: read, not recomputed
                                       : computed_backlog(*store, platform, threshold));
  res.data_scopes = {schema::stamp_scope_platform(platform)};
  return res;
}

}  // namespace

void register_backlog_routes(Router& router) {
  router.add("GET", "/api/v1/backlog", get_backlog, RouteOptions{}.params({"platform", "threshold"}));
}

}  // namespace perftriage::server
