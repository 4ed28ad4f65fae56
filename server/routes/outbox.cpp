// GET /api/v1/outbox?state=: the bot's GitHub actions and where each stands (pending, sent, failed, dry_run).
// POST /api/v1/outbox/tracking-issue: queue opening or updating a tracking issue (opt-in, e.g. from a report),
// deduplicated by the fingerprint platform + release + kind.
#include "common/bounded_json.hpp"
#include "common/utf8.hpp"
#include "schema/bot_store.hpp"
#include "server/bot/github_client.hpp"
#include "server/app/app_context.hpp"
#include "server/bot/outbox_worker.hpp"
#include "server/routes/routes.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxTrackingRequestBytes = 1u << 20;
constexpr std::size_t kMaxTitleChars = 256;   // GitHub's limit for an issue title
constexpr std::size_t kMaxBodyChars = 65536;  // ... and for its body
constexpr std::size_t kMaxLabels = 100;
constexpr std::size_t kMaxLabelChars = 50;  // GitHub's limit for a label name

Error bad(std::string code, std::string message, std::string field = {}) {
  return make_error(ErrorKind::invalid_input, std::move(code), std::move(message), {}, 0, std::move(field));
}

Result<ApiResponse> list_outbox(const ApiRequest& req, AppContext& app) {
  std::optional<schema::OutboxState> state;
  if (auto s = req.q("state"); !s.empty()) {
    state = schema::parse_outbox_state(s);
    if (!state) return bad("bad_state", "state is pending, sent, failed or dry_run", "state");
  }
  PT_ASSIGN(auto store, app.store());
  auto& db = store->db();
  PT_ASSIGN(const auto rows, schema::list_outbox(db, state));
  json actions = json::array();
  for (const auto& r : rows) actions.push_back(schema::to_json(r));
  json counts = json::object();
  for (auto s : {schema::OutboxState::pending, schema::OutboxState::sent, schema::OutboxState::failed,
                 schema::OutboxState::dry_run}) {
    PT_ASSIGN(counts[std::string(schema::to_string(s))], schema::count_outbox(db, s));
  }
  return json_response(200, {{"actions", actions}, {"counts", counts}, {"dry_run", app.settings().github.dry_run()}});
}

// The request body of POST /api/v1/outbox/tracking-issue, checked: the fields GitHub takes, within its limits.
Result<nlohmann::json> tracking_request(const ApiRequest& req) {
  PT_ASSIGN(json j, parse_bounded_json(req.bytes(), "tracking issue", JsonLimits::bytes(kMaxTrackingRequestBytes)));
  if (!j.is_object()) return bad("bad_json", "the body must be a JSON object");
  for (const char* field : {"repo", "platform", "release", "kind", "title", "body"}) {
    if (!j.contains(field) || !j[field].is_string() || j[field].get_ref<const std::string&>().empty())
      return bad("missing_field", std::string("\"") + field + "\" (a string) is required", field);
  }
  if (!is_github_repo(j["repo"].get_ref<const std::string&>())) {
    return bad("bad_repo", "\"repo\" must be a GitHub \"owner/name\"", "repo");
  }
  if (utf8_chars(j["title"].get_ref<const std::string&>()) > kMaxTitleChars ||
      utf8_chars(j["body"].get_ref<const std::string&>()) > kMaxBodyChars) {
    return bad("too_long", "\"title\" is at most 256 and \"body\" at most 65,536 characters");
  }
  if (j.contains("labels")) {
    const json& labels = j["labels"];
    bool ok = labels.is_array() && labels.size() <= kMaxLabels;
    for (std::size_t i = 0; ok && i < labels.size(); ++i) {
      ok = labels[i].is_string() && !labels[i].get_ref<const std::string&>().empty() &&
           utf8_chars(labels[i].get_ref<const std::string&>()) <= kMaxLabelChars;
    }
    if (!ok) {
      return bad("bad_labels", "\"labels\" is an array of at most 100 label names of at most 50 characters", "labels");
    }
  }
  return j;
}

Result<ApiResponse> queue_tracking_issue(const ApiRequest& req, AppContext& app) {
  PT_ASSIGN(const json j, tracking_request(req));
  const std::string fingerprint =
      j["platform"].get<std::string>() + "|" + j["release"].get<std::string>() + "|" + j["kind"].get<std::string>();
  schema::NewAction action{j["repo"].get<std::string>(),
                           0,
                           schema::OutboxKind::upsert_tracking_issue,
                           {{"fingerprint", fingerprint}, {"title", j["title"]}, {"body", j["body"]}}};
  if (j.contains("labels") && j["labels"].is_array()) action.payload["labels"] = j["labels"];
  PT_ASSIGN(auto store, app.store());
  auto& db = store->db();
  PT_ASSIGN(auto tx, schema::Transaction::begin(db));
  const bool dry_run = app.settings().github.dry_run();
  PT_ASSIGN(
      const std::int64_t id,
      schema::enqueue(db, action, dry_run ? schema::OutboxState::dry_run : schema::OutboxState::pending, unix_ms()));
  PT_TRY(tx.commit());
  return json_response(202, {{"status", "queued"}, {"id", id}, {"fingerprint", fingerprint}, {"dry_run", dry_run}});
}

}  // namespace

void register_outbox_routes(Router& router) {
  router.add("GET", "/api/v1/outbox", list_outbox, RouteOptions{}.require(Scope::bot).params({"state"}));
  router.add("POST", "/api/v1/outbox/tracking-issue", queue_tracking_issue,
             RouteOptions::on(Lane::heavy, kMaxTrackingRequestBytes)
                 .require(Scope::triage)
                 .accept({"application/json"})
                 .params({}));
}

}  // namespace perftriage::server
