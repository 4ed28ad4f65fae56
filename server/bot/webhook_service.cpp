#include "server/bot/webhook_service.hpp"

#include <cstdlib>
#include <optional>

#include "analyzers/labeler/labeler.hpp"
#include "common/bounded_json.hpp"
#include "schema/app_installation_store.hpp"
#include "schema/bot_store.hpp"
#include "schema/issue_case_store.hpp"
#include "server/http/http_types.hpp"
#include "server/app/label_evidence.hpp"
#include "server/app/label_retrain.hpp"
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
  PT_ASSIGN(const auto payload,
            parse_bounded_json(json_text(body), "webhook payload", JsonLimits::bytes(kMaxWebhookBytes)));
  PT_ASSIGN(auto event, webhook::parse_event(event_name, payload));
  const Disposition what = webhook::classify(event, gh.bot_login);
  return Parsed{std::move(event), what};
}

// The actions the repository's settings allow: labels and the comment can each be turned off.
std::vector<schema::NewAction> allowed(std::vector<schema::NewAction> actions, const RepoSettings& repo) {
  std::erase_if(actions, [&](const schema::NewAction& a) {
    const bool labels = a.kind == schema::OutboxKind::add_labels || a.kind == schema::OutboxKind::create_label;
    return (labels && !repo.label) || (a.kind == schema::OutboxKind::upsert_comment && !repo.comment);
  });
  return actions;
}

// Why an event about a repository is not acted on ("" when it is): [[github.repos]] leaves the repository out, or, in
// App mode, the App has lost it. A ping and the App's own installation events are about no one repository.
Result<std::string> ignore_reason(schema::Database& db, const GitHubSettings& gh, const Parsed& parsed) {
  if (parsed.what == Disposition::ping || parsed.what == Disposition::record_installation) return std::string();
  const auto& repo = parsed.event.repo;
  if (!repo_settings(gh, repo)) return "repository " + repo + " is not in [[github.repos]]";
  if (!gh.app()) return std::string();
  PT_ASSIGN(const auto installed, schema::app_repo(db, repo));
  if (installed && installed->removed) {
    return "the App was removed from " + repo + " (installation " + std::to_string(installed->installation_id) + ")";
  }
  return std::string();
}

// installation / installation_repositories: which repositories the App now covers and which it has lost.
Result<void> record_installation(schema::Database& db, const webhook::Event& event, nlohmann::json& answer) {
  const auto now = unix_ms();
  PT_TRY(schema::set_app_repos(db, event.installation, event.repos_added, false, now));
  PT_TRY(schema::set_app_repos(db, event.installation, event.repos_removed, true, now));
  if (event.name == "installation" && (event.action == "deleted" || event.action == "suspend")) {
    PT_TRY(schema::remove_app_installation(db, event.installation, now));
  }
  answer["status"] = "recorded";
  answer["installation"] = event.installation;
  answer["repositories_added"] = event.repos_added;
  answer["repositories_removed"] = event.repos_removed;
  return {};
}

// The second transaction: what the event means, written with the delivery's 'done' mark.
Result<WebhookAnswer> process(schema::Store& store, const GitHubSettings& gh, std::string_view delivery,
                              std::string_view event_name, const Parsed& parsed) {
  const auto& event = parsed.event;
  // An event not acted on is answered and finished with the reason, nothing else.
  PT_ASSIGN(const std::string reason, ignore_reason(store.db(), gh, parsed));
  const bool served = reason.empty();
  const auto repo = repo_settings(gh, event.repo);
  const Disposition what = served ? parsed.what : Disposition::ignored;
  std::optional<lb::Taxonomy> taxonomy;
  if (what == Disposition::label) {
    PT_ASSIGN(taxonomy, repo_taxonomy(store.db(), event.repo, repo->taxonomy, repo->label_model));
  }
  auto& db = store.db();
  PT_ASSIGN(auto tx, schema::Transaction::begin(db));
  WebhookAnswer answer{200, {{"status", "ignored"}, {"event", event_name}, {"action", event.action}}};
  if (!served) answer.body["reason"] = reason;
  switch (what) {
    case Disposition::ping: answer.body["status"] = "ok"; break;
    case Disposition::ignored_self:
    case Disposition::ignored: break;
    case Disposition::record_labeled: {
      PT_TRY(schema::record_human_label(db, event.repo, event.number, event.label));
      answer.body["status"] = "recorded";
      break;
    }
    case Disposition::record_installation: PT_TRY(record_installation(db, event, answer.body)); break;
    case Disposition::record_closed: {
      PT_TRY(schema::clear_issue_cases(db, event.repo, event.number));
      answer.body["status"] = "recorded";
      break;
    }
    case Disposition::record_unlabeled: {
      PT_ASSIGN(const bool remembered, schema::record_human_removal(db, event.repo, event.number, event.label));
      answer.body["status"] = "recorded";
      answer.body["suppressed"] = remembered;  // a label the bot applied: never applied again
      break;
    }
    case Disposition::label: {
      PT_ASSIGN(const auto suppressed, schema::suppressed_labels(db, event.repo, event.number));
      const auto input = webhook::to_issue_input(event);
      lb::LabelSettings settings;
      settings.layers = repo->label_layers.value_or(gh.label_layers);
      PT_ASSIGN(const auto result, label_with_evidence(store, input, *taxonomy, settings));
      auto actions = allowed(
          webhook::plan_label_actions(event, result, *taxonomy, suppressed, lb::render_comment(input, result)), *repo);
      const bool dry_run = gh.dry_run();
      const auto now = unix_ms();
      for (const auto& a : actions) {
        PT_TRY(schema::enqueue(db, a, dry_run ? schema::OutboxState::dry_run : schema::OutboxState::pending, now));
      }
      schema::LabeledIssue row{event.repo,    event.number,        event.title, json::array(),
                               result.labels, lb::to_json(result), {}};
      for (const auto& a : result.axes)
        row.axes.push_back(
            {{"axis", a.axis}, {"value", a.value}, {"reason", a.reason}, {"layer", lb::to_string(a.layer)}});
      PT_TRY(schema::save_labeled_issue(db, row));
      answer = {202,
                {{"status", "queued"}, {"actions", actions.size()}, {"dry_run", dry_run}, {"labels", result.labels}}};
      break;
    }
  }
  PT_ASSIGN(const bool finished, schema::finish_delivery(db, delivery, reason));
  if (!finished) {  // a concurrent redelivery of the same id finished first: its actions stand, ours are dropped
    tx.rollback();
    return WebhookAnswer{200, {{"status", "duplicate"}, {"delivery", delivery}}};
  }
  PT_TRY(tx.commit());
  return answer;
}

Result<schema::DeliveryClaim> claim(schema::Store& store, std::string_view delivery, std::string_view event_name,
                                    std::string_view action, std::string_view body) {
  PT_ASSIGN(auto tx, schema::Transaction::begin(store.db()));
  PT_ASSIGN(const auto claimed,
            schema::claim_delivery(
                store.db(), delivery, event_name, action, body,
                {.max_attempts = kMaxDeliveryAttempts, .now_ms = unix_ms(), .lease_ms = kDeliveryLeaseMs}));
  PT_TRY(tx.commit());
  return claimed;
}

// Processes a claimed delivery; a failure is written beside the delivery (it stays unfinished for one retry).
Result<WebhookAnswer> process_or_note(schema::Store& store, const GitHubSettings& gh, std::string_view delivery,
                                      std::string_view event_name, const Parsed& parsed) {
  maybe_inject_fault(parsed.event);
  auto answer = process(store, gh, delivery, event_name, parsed);
  if (!answer) {
    auto tx = schema::Transaction::begin(store.db());
    if (tx && schema::note_delivery_error(store.db(), delivery, answer.error().message)) (void)tx->commit();
  }
  return answer;
}

}  // namespace

Result<WebhookAnswer> receive_delivery(schema::Store& store, const GitHubSettings& gh, std::string_view delivery,
                                       std::string_view event_name, std::string_view body) {
  // Parsed, and its names checked (webhook::parse_event), before it is recorded: a refused delivery leaves no row.
  PT_ASSIGN(const auto parsed, parse(event_name, body, gh));
  PT_ASSIGN(const auto claimed, claim(store, delivery, event_name, parsed.event.action, body));
  if (claimed != schema::DeliveryClaim::fresh && claimed != schema::DeliveryClaim::retry) {
    return WebhookAnswer{200, {{"status", std::string(schema::to_string(claimed))}, {"delivery", delivery}}};
  }
  return process_or_note(store, gh, delivery, event_name, parsed);
}

std::size_t recover_deliveries(schema::Store& store, const GitHubSettings& gh, std::ostream& log) {
  // Only this process works a SQLite file: what its killed predecessor had leased is this one's now. On PostgreSQL
  // a live lease may be another replica's; that delivery is left to it, or, once the lease has run out, to the
  // first replica whose periodic call of this function comes next (serve's delivery recovery).
  if (store.db().dialect() == schema::Dialect::sqlite) {
    auto tx = schema::Transaction::begin(store.db());
    if (!tx || !schema::release_delivery_leases(store.db()) || !tx->commit()) {
      log << "perftriage: webhook recovery: could not release the delivery leases\n";
    }
  }
  auto unfinished = schema::list_deliveries(store.db(), "processing");
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
    if (*claimed == schema::DeliveryClaim::in_progress) continue;  // its replica is on it (or its lease still runs)
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
      if (tx && schema::quarantine_delivery(store.db(), d.delivery_id, why)) (void)tx->commit();
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
