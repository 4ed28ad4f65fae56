#include "server/bot/webhook_service.hpp"

#include <cstdlib>
#include <optional>

#include "analyzers/labeler/labeler.hpp"
#include "common/bounded_json.hpp"
#include "schema/bot_store.hpp"
#include "server/http/http_types.hpp"
#include "server/app/label_evidence.hpp"
#include "server/bot/outbox_worker.hpp"
#include "server/bot/webhook.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;
namespace lb = analyzers::labeler;
using webhook::Disposition;

// Fault injection for the end-to-end tests of the quarantine: when this variable is set, a delivery whose issue
// title contains its value aborts the process after the delivery was recorded, as a crashing labeler would.
void maybe_inject_fault(const webhook::Event& event) {
  const char* marker = std::getenv("PERFTRIAGE_FAULT_WEBHOOK_ABORT");
  if (marker != nullptr && *marker != '\0' && event.title.find(marker) != std::string::npos) std::abort();
}

// GitHub's default content type is application/x-www-form-urlencoded with the JSON in the `payload` field.
std::string json_text(std::string_view body) {
  if (body.rfind("payload=", 0) == 0) return url_decode(body.substr(8), true);
  return std::string(body);
}

struct Parsed {
  webhook::Event event;
  Disposition what = Disposition::ignored;
};

Result<Parsed> parse(std::string_view event_name, std::string_view body, const GitHubSettings& gh) {
  auto payload = parse_bounded_json(json_text(body), "webhook payload", JsonLimits::bytes(kMaxWebhookBytes));
  if (!payload) return std::move(payload).error();
  auto event = webhook::parse_event(event_name, *payload);
  if (!event) return std::move(event).error();
  const Disposition what = webhook::classify(*event, gh.bot_login);
  return Parsed{std::move(*event), what};
}

// The second transaction: what the event means, written with the delivery's 'done' mark.
Result<WebhookAnswer> process(schema::Store& store, const GitHubSettings& gh, std::string_view delivery,
                              std::string_view event_name, const Parsed& parsed) {
  const auto& event = parsed.event;
  std::optional<lb::Taxonomy> taxonomy;
  if (parsed.what == Disposition::label) {
    auto t = lb::load_taxonomy(gh.taxonomy);
    if (!t) return std::move(t).error();
    taxonomy = std::move(*t);
  }
  auto& db = store.db();
  schema::BotStore bot(db);
  auto tx = schema::Transaction::begin(db);
  if (!tx) return std::move(tx).error();
  WebhookAnswer answer{200, {{"status", "ignored"}, {"event", event_name}, {"action", event.action}}};
  switch (parsed.what) {
    case Disposition::ping: answer.body["status"] = "ok"; break;
    case Disposition::ignored_self:
    case Disposition::ignored: break;
    case Disposition::record_labeled: {
      PT_TRY(bot.record_human_label(event.repo, event.number, event.label));
      answer.body["status"] = "recorded";
      break;
    }
    case Disposition::record_unlabeled: {
      auto remembered = bot.record_human_removal(event.repo, event.number, event.label);
      if (!remembered) return std::move(remembered).error();
      answer.body["status"] = "recorded";
      answer.body["suppressed"] = *remembered;  // a label the bot applied: never applied again
      break;
    }
    case Disposition::label: {
      auto suppressed = bot.suppressed_labels(event.repo, event.number);
      if (!suppressed) return std::move(suppressed).error();
      const auto input = webhook::to_issue_input(event);
      auto labeled = label_with_evidence(store, input, *taxonomy, lb::LabelSettings{});
      if (!labeled) return std::move(labeled).error();
      const auto& result = *labeled;
      auto actions =
          webhook::plan_label_actions(event, result, *taxonomy, *suppressed, lb::render_comment(input, result));
      const bool dry_run = gh.token.empty();
      const auto now = unix_ms();
      for (const auto& a : actions) {
        auto id = bot.enqueue(a, dry_run ? schema::OutboxState::dry_run : schema::OutboxState::pending, now);
        if (!id) return std::move(id).error();
      }
      schema::LabeledIssue row{event.repo, event.number, event.title, json::array(), result.labels,
                               lb::to_json(result), {}};
      for (const auto& a : result.axes)
        row.axes.push_back({{"axis", a.axis}, {"value", a.value}, {"reason", a.reason}});
      PT_TRY(bot.save_labeled_issue(row));
      answer = {202, {{"status", "queued"}, {"actions", actions.size()}, {"dry_run", dry_run}, {"labels", result.labels}}};
      break;
    }
  }
  auto finished = bot.finish_delivery(delivery);
  if (!finished) return std::move(finished).error();
  if (!*finished) {  // a concurrent redelivery of the same id finished first: its actions stand, ours are dropped
    tx->rollback();
    return WebhookAnswer{200, {{"status", "duplicate"}, {"delivery", delivery}}};
  }
  PT_TRY(tx->commit());
  return answer;
}

Result<schema::DeliveryClaim> claim(schema::Store& store, std::string_view delivery, std::string_view event_name,
                                    std::string_view action, std::string_view body) {
  auto tx = schema::Transaction::begin(store.db());
  if (!tx) return std::move(tx).error();
  auto claimed = schema::BotStore(store.db()).claim_delivery(delivery, event_name, action, body, kMaxDeliveryAttempts);
  if (!claimed) return claimed;
  PT_TRY(tx->commit());
  return claimed;
}

// Processes a claimed delivery; a failure is written beside the delivery (it stays unfinished for one retry).
Result<WebhookAnswer> process_or_note(schema::Store& store, const GitHubSettings& gh, std::string_view delivery,
                                      std::string_view event_name, const Parsed& parsed) {
  maybe_inject_fault(parsed.event);
  auto answer = process(store, gh, delivery, event_name, parsed);
  if (!answer) {
    auto tx = schema::Transaction::begin(store.db());
    if (tx && schema::BotStore(store.db()).note_delivery_error(delivery, answer.error().message)) (void)tx->commit();
  }
  return answer;
}

}  // namespace

Result<WebhookAnswer> receive_delivery(schema::Store& store, const GitHubSettings& gh, std::string_view delivery,
                                       std::string_view event_name, std::string_view body) {
  auto parsed = parse(event_name, body, gh);
  if (!parsed) return std::move(parsed).error();
  auto claimed = claim(store, delivery, event_name, parsed->event.action, body);
  if (!claimed) return std::move(claimed).error();
  if (*claimed == schema::DeliveryClaim::duplicate || *claimed == schema::DeliveryClaim::quarantined) {
    return WebhookAnswer{200, {{"status", std::string(schema::to_string(*claimed))}, {"delivery", delivery}}};
  }
  return process_or_note(store, gh, delivery, event_name, *parsed);
}

std::size_t recover_deliveries(schema::Store& store, const GitHubSettings& gh, std::ostream& log) {
  auto unfinished = schema::BotStore(store.db()).deliveries("processing");
  if (!unfinished) {
    log << "perftriage: webhook recovery: " << unfinished.error().message << "\n";
    return 0;
  }
  for (const auto& d : *unfinished) {
    auto claimed = claim(store, d.delivery_id, d.event, d.action, d.payload);
    if (!claimed) {
      log << "perftriage: webhook delivery " << d.delivery_id << ": " << claimed.error().message << "\n";
      continue;
    }
    if (*claimed != schema::DeliveryClaim::retry) {
      log << "perftriage: webhook delivery " << d.delivery_id << " (" << d.event << " " << d.action
          << ") was in progress when the process stopped, again: quarantined (GET /api/v1/webhooks/deliveries)\n";
      continue;
    }
    auto parsed = parse(d.event, d.payload, gh);
    auto answer = parsed ? process_or_note(store, gh, d.delivery_id, d.event, *parsed)
                         : Result<WebhookAnswer>(std::move(parsed).error());
    if (!parsed || !answer) {
      const std::string why = !answer ? answer.error().message : "unreadable payload";
      auto tx = schema::Transaction::begin(store.db());
      if (tx && schema::BotStore(store.db()).quarantine_delivery(d.delivery_id, why)) (void)tx->commit();
      log << "perftriage: webhook delivery " << d.delivery_id << " retried and failed: quarantined: " << why << "\n";
    } else {
      log << "perftriage: webhook delivery " << d.delivery_id << " (" << d.event << " " << d.action
          << ") was in progress when the process stopped: processed again, " << answer->body.value("status", "")
          << "\n";
    }
  }
  return unfinished->size();
}

}  // namespace perftriage::server
