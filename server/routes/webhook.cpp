// POST /webhooks/github: verify, then hand the delivery to the webhook use case (server/bot/webhook_service.hpp), which
// records it, writes its outbox actions and answers. GET /api/v1/webhooks/deliveries?state=: deliveries by state
// (processing, done, quarantined), so a quarantined one is visible. Nothing here talks to GitHub.
#include "schema/bot_store.hpp"
#include "server/app/app_context.hpp"
#include "server/routes/routes.hpp"
#include "server/bot/webhook.hpp"
#include "server/bot/webhook_service.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

Error bad(std::string code, std::string message) {
  return make_error(ErrorKind::invalid_input, std::move(code), std::move(message));
}

// Before a byte of the body is read: no secret configured, or no signature sent, can only end in 401.
std::optional<Error> check_headers(const ApiRequest& req, AppContext& app) {
  if (app.settings().github.webhook_secret.empty()) {
    return make_error(ErrorKind::unauthorized, "webhook_secret_missing",
                      "no webhook secret is configured: webhooks are refused");
  }
  if (req.header("x-hub-signature-256").rfind("sha256=", 0) != 0) {
    return make_error(ErrorKind::unauthorized, "bad_signature", "X-Hub-Signature-256 is missing");
  }
  return std::nullopt;
}

Result<ApiResponse> receive(const ApiRequest& req, AppContext& app) {
  const auto& gh = app.settings().github;
  // Authentication comes first: an unsigned body is neither parsed nor recorded.
  if (auto refused = check_headers(req, app)) return *refused;
  if (!webhook::verify_signature(gh.webhook_secret, req.bytes(), req.header("x-hub-signature-256"))) {
    return make_error(ErrorKind::unauthorized, "bad_signature",
                      "X-Hub-Signature-256 is missing or does not match the body");
  }
  const std::string delivery = req.header("x-github-delivery");
  const std::string event_name = req.header("x-github-event");
  if (delivery.empty() || delivery.size() > 100) {
    return bad("missing_delivery", "X-GitHub-Delivery (at most 100 characters) is required");
  }
  if (event_name.empty()) return bad("missing_event", "X-GitHub-Event is required");
  PT_ASSIGN(auto store, app.store());
  PT_ASSIGN(auto answer, receive_delivery(*store, gh, delivery, event_name, req.bytes()));
  return json_response(answer.status, answer.body);
}

Result<ApiResponse> list_deliveries(const ApiRequest& req, AppContext& app) {
  const std::string state = req.q("state");
  if (!state.empty() && state != "processing" && state != "done" && state != "quarantined") {
    return bad("bad_state", "state is processing, done or quarantined");
  }
  PT_ASSIGN(auto store, app.store());
  auto& db = store->db();
  PT_ASSIGN(const auto rows, schema::list_deliveries(db, state));
  json list = json::array();
  for (const auto& r : rows) list.push_back(schema::to_json(r));
  json counts = json::object();
  for (const char* s : {"processing", "done", "quarantined"}) {
    PT_ASSIGN(counts[s], schema::count_deliveries(db, s));
  }
  return json_response(200, {{"deliveries", list}, {"counts", counts}});
}

// Every delivery is counted by event and outcome (perftriage_webhook_deliveries_total): the answer's status
// (queued, recorded, ignored, duplicate, quarantined; ping for GitHub's ping), unauthorized, or error.
std::string delivery_outcome(const Result<ApiResponse>& answer) {
  if (!answer) return answer.error().kind == ErrorKind::unauthorized ? "unauthorized" : "error";
  const ApiResponse& res = *answer;
  if (res.status == 401) return "unauthorized";
  if (res.status >= 400) return "error";
  auto body = json::parse(res.body, nullptr, false);
  std::string status = body.is_object() && body.contains("status") && body["status"].is_string()
                           ? body["status"].get<std::string>()
                           : "unknown";
  return status == "ok" ? "ping" : status;
}

Result<ApiResponse> receive_counted(const ApiRequest& req, AppContext& app) {
  auto res = receive(req, app);
  app.obs().webhook_delivery(req.header("x-github-event"), delivery_outcome(res));
  return res;
}

std::optional<Error> check_headers_counted(const ApiRequest& req, AppContext& app) {
  auto refused = check_headers(req, app);
  if (refused) app.obs().webhook_delivery(req.header("x-github-event"), "unauthorized");
  return refused;
}

}  // namespace

void register_webhook_routes(Router& router) {
  // GitHub signs its deliveries (HMAC, check_headers); it sends no token.
  router.add("POST", "/webhooks/github", receive_counted,
             RouteOptions::on(Lane::heavy, kMaxWebhookBytes, check_headers_counted).require(Scope::none));
  router.add("GET", "/api/v1/webhooks/deliveries", list_deliveries,
             RouteOptions{}.require(Scope::bot).params({"state"}));
}

}  // namespace perftriage::server
