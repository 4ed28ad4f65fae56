#pragma once
// The pure half of the GitHub webhook: signature check, payload reading, what an event means, and the outbox actions
// that label an issue. No I/O; server/routes/webhook.cpp does the transaction around it.
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/labeler/labeler.hpp"
#include "common/result.hpp"
#include "schema/bot_store.hpp"

namespace perftriage::server::webhook {

// Lower-case hex of HMAC-SHA256(key, data).
std::string hmac_sha256_hex(std::string_view key, std::string_view data);
// `header` is X-Hub-Signature-256 ("sha256=<hex>"), checked over the exact body bytes with a constant-time compare.
// An empty secret never verifies: webhooks are refused until one is configured.
bool verify_signature(std::string_view secret, std::string_view body, std::string_view header);

struct Event {
  std::string name;    // X-GitHub-Event
  std::string action;  // payload "action"
  std::string repo;    // repository.full_name
  std::string sender;  // sender.login
  std::int64_t number = 0;
  std::string title, body;
  std::vector<std::string> labels;  // labels on the issue now
  std::string label;                // labeled / unlabeled: the label's name
  std::string comment;              // issue_comment: the comment's body
  bool pull_request = false;
  // installation / installation_repositories (a GitHub App's own events): the installation and the repositories it
  // now covers or has lost (owner/name, each checked as repository.full_name is).
  std::int64_t installation = 0;
  std::vector<std::string> repos_added, repos_removed;
};

// Reads the fields the bot uses; an issue event without repository / issue number is invalid_input (bad_payload).
// The names it will act on are checked against GitHub's rules (server/bot/github_names.hpp) here, at the edge:
// repository.full_name (bad_repository), issue.number a positive int64 integer (bad_issue_number), label.name and
// issue.labels 1-50 characters (bad_label), each an invalid_input naming the field. Such a delivery is answered 400
// and neither recorded nor queued, rather than accepted as "ignored": GitHub retries no delivery by itself, so a 4xx
// costs nothing but a failed entry in the App's delivery log, and that entry is where a malformed payload signed
// with our secret (a GitHub bug, or a leaked secret) should be seen; a manual redelivery fails the same way.
Result<Event> parse_event(std::string_view name, const nlohmann::json& payload);

enum class Disposition {
  ping,            // 200, nothing to do
  ignored_self,    // caused by the bot itself
  ignored,         // an event or action the bot does not handle
  record_labeled,  // a human added a label
  record_unlabeled,
  label,                // (re)label the issue: opened / edited / reopened, or a `/label` comment
  record_closed,        // the issue was closed: it no longer tracks the cases it names (reopened relabels it)
  record_installation,  // the App gained or lost repositories (installation, installation_repositories)
};
Disposition classify(const Event& event, std::string_view bot_login);
std::string_view to_string(Disposition d);

// True when one line of the comment is exactly `/label` (surrounding blanks allowed).
bool has_label_command(std::string_view comment);

analyzers::labeler::IssueInput to_issue_input(const Event& event);

// The actions that label one issue, in the order they must happen: create each label the bot will add (its axis'
// colour; GitHub answers 422 already_exists for known ones), add them in one request, then upsert the one comment.
// Labels already on the issue and labels a human removed from it (`suppressed`) are not added.
std::vector<schema::NewAction> plan_label_actions(const Event& event, const analyzers::labeler::LabelResult& result,
                                                  const analyzers::labeler::Taxonomy& taxonomy,
                                                  const std::set<std::string>& suppressed, std::string comment);

}  // namespace perftriage::server::webhook
