// POST /webhooks/github: verify, dedupe, decide, and write every outbox action in one transaction before answering.
// Nothing here talks to GitHub; the outbox worker does, later.
#include "analyzers/labeler/labeler.hpp"
#include "schema/bot_store.hpp"
#include "server/app_context.hpp"
#include "server/label_evidence.hpp"
#include "server/outbox_worker.hpp"
#include "server/routes/routes.hpp"
#include "server/webhook.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;
namespace lb = analyzers::labeler;
using webhook::Disposition;

Error bad(std::string code, std::string message) {
  return make_error(ErrorKind::invalid_input, std::move(code), std::move(message));
}

ApiResponse receive(const ApiRequest& req, AppContext& app) {
  const auto& gh = app.settings().github;
  // Authentication comes first: an unsigned body is neither parsed nor recorded.
  if (gh.webhook_secret.empty()) {
    return error_response(make_error(ErrorKind::unauthorized, "webhook_secret_missing",
                                     "no webhook secret is configured: webhooks are refused"));
  }
  if (!webhook::verify_signature(gh.webhook_secret, req.body, req.header("x-hub-signature-256"))) {
    return error_response(make_error(ErrorKind::unauthorized, "bad_signature",
                                     "X-Hub-Signature-256 is missing or does not match the body"));
  }
  const std::string delivery = req.header("x-github-delivery");
  const std::string event_name = req.header("x-github-event");
  if (delivery.empty()) return error_response(bad("missing_delivery", "X-GitHub-Delivery is required"));
  if (event_name.empty()) return error_response(bad("missing_event", "X-GitHub-Event is required"));
  const json payload = json::parse(req.body, nullptr, false);
  if (payload.is_discarded()) return error_response(bad("bad_json", "the webhook body is not valid JSON"));
  auto event = webhook::parse_event(event_name, payload);
  if (!event) return error_response(event.error());
  const Disposition what = webhook::classify(*event, gh.bot_login);

  std::optional<lb::Taxonomy> taxonomy;
  if (what == Disposition::label) {
    auto t = lb::load_taxonomy(gh.taxonomy);
    if (!t) return error_response(t.error());
    taxonomy = std::move(*t);
  }

  auto store = app.store();
  if (!store) return error_response(store.error());
  auto& db = (*store)->db();
  schema::BotStore bot(db);
  auto tx = schema::Transaction::begin(db);
  if (!tx) return error_response(tx.error());
  auto fresh = bot.record_delivery(delivery, event_name, event->action);
  if (!fresh) return error_response(fresh.error());
  if (!*fresh) return json_response(200, {{"status", "duplicate"}, {"delivery", delivery}});

  json answer{{"status", "ignored"}, {"event", event_name}, {"action", event->action}};
  unsigned status = 200;
  switch (what) {
    case Disposition::ping: answer["status"] = "ok"; break;
    case Disposition::ignored_self:
    case Disposition::ignored: break;
    case Disposition::record_labeled: {
      auto r = bot.record_human_label(event->repo, event->number, event->label);
      if (!r) return error_response(r.error());
      answer["status"] = "recorded";
      break;
    }
    case Disposition::record_unlabeled: {
      auto remembered = bot.record_human_removal(event->repo, event->number, event->label);
      if (!remembered) return error_response(remembered.error());
      answer["status"] = "recorded";
      answer["suppressed"] = *remembered;  // a label the bot applied: never applied again
      break;
    }
    case Disposition::label: {
      auto suppressed = bot.suppressed_labels(event->repo, event->number);
      if (!suppressed) return error_response(suppressed.error());
      const auto input = webhook::to_issue_input(*event);
      const auto result = label_with_evidence(**store, input, *taxonomy);
      auto actions =
          webhook::plan_label_actions(*event, result, *taxonomy, *suppressed, lb::render_comment(input, result));
      const bool dry_run = gh.token.empty();
      const auto now = unix_ms();
      for (const auto& a : actions) {
        auto id = bot.enqueue(a, dry_run ? schema::OutboxState::dry_run : schema::OutboxState::pending, now);
        if (!id) return error_response(id.error());
      }
      schema::LabeledIssue row{event->repo, event->number, event->title, json::array(), result.labels,
                               lb::to_json(result), {}};
      for (const auto& a : result.axes)
        row.axes.push_back({{"axis", a.axis}, {"value", a.value}, {"reason", a.reason}});
      if (auto r = bot.save_labeled_issue(row); !r) return error_response(r.error());
      answer = {{"status", "queued"}, {"actions", actions.size()}, {"dry_run", dry_run}, {"labels", result.labels}};
      status = 202;
      break;
    }
  }
  if (auto r = tx->commit(); !r) return error_response(r.error());
  return json_response(status, answer);
}

}  // namespace

void register_webhook_routes(Router& router) { router.add("POST", "/webhooks/github", receive); }

}  // namespace perftriage::server
