#pragma once
// The webhook use case: a verified GitHub delivery becomes outbox actions, exactly once, and a delivery that kills
// the process cannot take it down again. Two transactions: the first records the delivery ('processing', with its
// payload) and commits; the second writes the outbox actions and marks it 'done'. A delivery found unfinished (at
// start-up, or when GitHub redelivers it) is processed once more, then quarantined. The route only checks the
// signature and maps the answer.
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "common/result.hpp"
#include "schema/store.hpp"
#include "server/app/settings.hpp"

namespace perftriage::server {

constexpr std::size_t kMaxWebhookBytes = 25u << 20;  // GitHub caps payloads at 25 MB
constexpr std::int64_t kMaxDeliveryAttempts = 2;     // the first try and one retry, then quarantine
// How long a claimed delivery is its request's alone (schema::claim_delivery): far longer than labeling one issue
// takes (milliseconds); a copy arriving meanwhile answers "in_progress" (its payload is stored: it will be done).
// When the claimer dies, the delivery waits this long, then the next replica's recovery (at most a third of it
// later) or the next redelivery processes it. Were the processing still running after it, a second copy would process
// it too, harmlessly: only the first to finish commits (finish_delivery), the other's actions are dropped.
constexpr std::int64_t kDeliveryLeaseMs = 30 * 1000;

struct WebhookAnswer {
  unsigned status = 200;
  nlohmann::json body;
};

// `body` is the verified raw payload (JSON, or GitHub's form encoding `payload=...`).
Result<WebhookAnswer> receive_delivery(schema::Store& store, const GitHubSettings& gh, std::string_view delivery,
                                       std::string_view event_name, std::string_view body);

// Every delivery left 'processing' whose lease has run out (or, on SQLite, every one: called at start-up, when no
// other process can hold one) is retried once, or quarantined when it already was. Called at start-up and, on
// PostgreSQL, periodically by serve (a replica that died mid-delivery leaves its lease behind). Returns how many
// were looked at; each retry or quarantine is logged to `log`.
std::size_t recover_deliveries(schema::Store& store, const GitHubSettings& gh, std::ostream& log);

}  // namespace perftriage::server
