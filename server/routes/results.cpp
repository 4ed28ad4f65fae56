// GET /api/v1/results?run=&platform=&suite=&dtype=&mode=&kind=&config=&model=&flag=&threshold=&limit=&offset=
#include <charconv>

#include "server/app/app_context.hpp"
#include "server/app/queries.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

Result<schema::ResultFlag> parse_flag(const std::string& s) {
  if (s.empty() || s == "any") return schema::ResultFlag::any;
  if (s == "slow") return schema::ResultFlag::slow;
  if (s == "failed") return schema::ResultFlag::failed;
  if (s == "accuracy_failed") return schema::ResultFlag::accuracy_failed;
  if (s == "unreliable") return schema::ResultFlag::unreliable;
  if (s == "deviates") return schema::ResultFlag::deviates;
  if (s == "invalid") return schema::ResultFlag::invalid;
  return make_error(
      ErrorKind::invalid_input, "bad_flag",
      "flag must be one of slow, failed, accuracy_failed, unreliable, deviates, invalid, missing; got '" + s + "'", {},
      0, "flag");
}

Result<std::int64_t> parse_count(const std::string& text, const char* name, std::int64_t fallback) {
  if (text.empty()) return fallback;
  std::int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || v < 0) {
    return make_error(ErrorKind::invalid_input, "bad_number",
                      std::string(name) + " must be a non-negative integer, got '" + text + "'", {}, 0, name);
  }
  return v;
}

Result<ApiResponse> get_results(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(const double threshold, parse_threshold(req.q("threshold"), app.settings().slow_threshold));
  PT_ASSIGN(const auto runs, resolve_runs(*store, req.q("run"), req.q("platform")));

  if (req.q("flag") == "missing") {  // derived by comparison, not stored per row
    json out = json::array();
    for (const auto& run : runs) {
      PT_ASSIGN(const auto missing, schema::missing(store->db(), run));
      for (const auto& m : missing) {
        if (!req.q("suite").empty() && m.suite != req.q("suite")) continue;
        if (!req.q("dtype").empty() && m.dtype != req.q("dtype")) continue;
        if (!req.q("mode").empty() && m.mode != req.q("mode")) continue;
        if (!req.q("kind").empty() && m.kind != req.q("kind")) continue;
        auto j = missing_json(m);
        j["run"] = run.meta.key;
        out.push_back(j);
      }
    }
    return json_response(200, {{"results", out}, {"count", out.size()}});
  }

  schema::ResultFilter filter;
  PT_ASSIGN(filter.flag, parse_flag(req.q("flag")));
  PT_ASSIGN(filter.limit, parse_count(req.q("limit"), "limit", 5000));
  PT_ASSIGN(filter.offset, parse_count(req.q("offset"), "offset", 0));
  for (const auto& r : runs) filter.run_ids.push_back(r.id);
  filter.suite = req.q("suite");
  filter.dtype = req.q("dtype");
  filter.mode = req.q("mode");
  filter.kind = req.q("kind");
  filter.config = req.q("config");
  filter.model = req.q("model");
  filter.threshold = threshold;
  PT_ASSIGN(const auto rows, schema::results(store->db(), filter));
  json out = json::array();
  for (const auto& r : rows) out.push_back(result_json(r, threshold));
  return json_response(200, {{"results", out}, {"count", out.size()}});
}

}  // namespace

void register_result_routes(Router& router) {
  router.add("GET", "/api/v1/results", get_results,
             RouteOptions{}.params({"run", "platform", "suite", "dtype", "mode", "kind", "config", "model", "flag",
                                    "threshold", "limit", "offset"}));
}

}  // namespace perftriage::server
