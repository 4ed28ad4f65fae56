#include "server/bot/webhook.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <optional>

#include "common/strings.hpp"
#include "server/bot/github_names.hpp"

namespace perftriage::server::webhook {
namespace {

using nlohmann::json;
namespace lb = analyzers::labeler;

std::string str_at(const json& j, const char* key) {
  if (!j.is_object()) return {};
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

const json& obj_at(const json& j, const char* key) {
  static const json kNull;
  if (!j.is_object()) return kNull;
  auto it = j.find(key);
  return it != j.end() && it->is_object() ? *it : kNull;
}

Error bad_field(std::string code, std::string message, std::string field) {
  return make_error(ErrorKind::invalid_input, std::move(code), std::move(message), {}, 0, std::move(field));
}

// GitHub's issue numbers are positive integers: a float (1.5), a string ("7"), zero, a negative or anything past
// int64 (which JSON reads as an unsigned or a float) is no issue of GitHub's and must never reach a URL.
std::optional<std::int64_t> issue_number(const json& value) {
  std::int64_t n = 0;
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
    n = static_cast<std::int64_t>(u);
  } else if (value.is_number_integer()) {
    n = value.get<std::int64_t>();
  }
  if (!is_github_number(n)) return std::nullopt;
  return n;
}

// The names an issue event puts into outbox rows and GitHub URL paths (the repository) or into the bot's record of
// what humans labeled (label names), checked against GitHub's own rules (server/bot/github_names.hpp).
Result<void> check_names(const Event& e) {
  if (!is_github_repo(e.repo)) {
    return bad_field("bad_repository",
                     "repository.full_name must be GitHub's \"owner/name\" (owner: 1-39 letters, digits or inner "
                     "hyphens; name: 1-100 letters, digits, '.', '-' or '_', not \".\" or \"..\")",
                     "repository.full_name");
  }
  if (!e.label.empty() && !is_github_label(e.label)) {
    return bad_field("bad_label", "label.name must be a GitHub label name (1-50 characters)", "label.name");
  }
  for (const auto& l : e.labels) {
    if (!is_github_label(l)) {
      return bad_field("bad_label", "issue.labels must hold GitHub label names (1-50 characters)", "issue.labels");
    }
  }
  return {};
}

// The full_name of each repository in payload[key] (an array of repository objects), each checked.
Result<std::vector<std::string>> repo_names(const json& payload, const char* key) {
  std::vector<std::string> out;
  const auto it = payload.find(key);
  if (it == payload.end() || !it->is_array()) return out;
  for (const auto& r : *it) {
    auto name = str_at(r, "full_name");
    if (!is_github_repo(name)) {
      return bad_field("bad_repository", std::string(key) + "[].full_name must be owner/name", key);
    }
    out.push_back(std::move(name));
  }
  return out;
}

// installation: created / unsuspend / new_permissions_accepted name what it covers in `repositories`; deleted /
// suspend lose them all. installation_repositories: repositories_added / repositories_removed.
Result<void> parse_installation(const json& payload, Event& e) {
  const json& installation = obj_at(payload, "installation");
  const auto id = installation.contains("id") ? issue_number(installation.at("id")) : std::nullopt;
  if (!id) return bad_field("bad_installation", "installation.id must be a positive integer", "installation.id");
  e.installation = *id;
  if (e.name == "installation_repositories") {
    PT_ASSIGN(e.repos_added, repo_names(payload, "repositories_added"));
    PT_ASSIGN(e.repos_removed, repo_names(payload, "repositories_removed"));
    return {};
  }
  PT_ASSIGN(auto repos, repo_names(payload, "repositories"));
  if (e.action == "deleted" || e.action == "suspend") {
    e.repos_removed = std::move(repos);
  } else {
    e.repos_added = std::move(repos);
  }
  return {};
}

}  // namespace

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(data.data()),
       data.size(), mac, &len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[mac[i] >> 4]);
    out.push_back(kHex[mac[i] & 0xf]);
  }
  return out;
}

bool verify_signature(std::string_view secret, std::string_view body, std::string_view header) {
  constexpr std::string_view kPrefix = "sha256=";
  if (secret.empty() || header.substr(0, kPrefix.size()) != kPrefix) return false;
  const std::string given = lower(header.substr(kPrefix.size()));
  const std::string expected = hmac_sha256_hex(secret, body);
  if (given.size() != expected.size()) return false;  // the length is public (64), only the content is secret
  return CRYPTO_memcmp(given.data(), expected.data(), expected.size()) == 0;
}

Result<Event> parse_event(std::string_view name, const json& payload) {
  if (!payload.is_object()) {
    return make_error(ErrorKind::invalid_input, "bad_payload", "the webhook payload is not a JSON object");
  }
  Event e;
  e.name = std::string(name);
  e.action = str_at(payload, "action");
  e.repo = str_at(obj_at(payload, "repository"), "full_name");
  e.sender = str_at(obj_at(payload, "sender"), "login");
  if (e.name == "installation" || e.name == "installation_repositories") {
    PT_TRY(parse_installation(payload, e));
    return e;
  }
  if (e.name != "issues" && e.name != "issue_comment") return e;
  const json& issue = obj_at(payload, "issue");
  if (e.repo.empty() || !issue.contains("number")) {
    return make_error(ErrorKind::invalid_input, "bad_payload",
                      "an " + e.name + " event needs repository.full_name and issue.number");
  }
  const auto number = issue_number(issue.at("number"));
  if (!number) {
    return bad_field("bad_issue_number", "issue.number must be a positive integer of at most 2^63-1 (not a string)",
                     "issue.number");
  }
  e.number = *number;
  e.title = str_at(issue, "title");
  e.body = str_at(issue, "body");  // null for an empty body
  e.pull_request = issue.contains("pull_request");
  if (auto labels = issue.find("labels"); labels != issue.end() && labels->is_array()) {
    for (const auto& l : *labels) {
      if (l.is_string())
        e.labels.push_back(l.get<std::string>());
      else if (auto n = str_at(l, "name"); !n.empty())
        e.labels.push_back(n);
    }
  }
  e.label = str_at(obj_at(payload, "label"), "name");
  e.comment = str_at(obj_at(payload, "comment"), "body");
  PT_TRY(check_names(e));
  return e;
}

bool has_label_command(std::string_view comment) {
  while (!comment.empty()) {
    auto nl = comment.find('\n');
    if (trim(comment.substr(0, nl)) == "/label") return true;
    if (nl == std::string_view::npos) break;
    comment.remove_prefix(nl + 1);
  }
  return false;
}

Disposition classify(const Event& e, std::string_view bot_login) {
  if (e.name == "ping") return Disposition::ping;
  if (e.name == "installation" || e.name == "installation_repositories") return Disposition::record_installation;
  if (!bot_login.empty() && lower(e.sender) == lower(bot_login)) return Disposition::ignored_self;
  if (e.name == "issues") {
    if (e.action == "opened" || e.action == "edited" || e.action == "reopened") return Disposition::label;
    if (e.action == "labeled" && !e.label.empty()) return Disposition::record_labeled;
    if (e.action == "unlabeled" && !e.label.empty()) return Disposition::record_unlabeled;
    if (e.action == "closed") return Disposition::record_closed;
    return Disposition::ignored;
  }
  if (e.name == "issue_comment" && e.action == "created" && !e.pull_request && has_label_command(e.comment)) {
    return Disposition::label;
  }
  return Disposition::ignored;
}

std::string_view to_string(Disposition d) {
  switch (d) {
    case Disposition::ping: return "ping";
    case Disposition::ignored_self: return "ignored_self";
    case Disposition::ignored: return "ignored";
    case Disposition::record_labeled: return "record_labeled";
    case Disposition::record_unlabeled: return "record_unlabeled";
    case Disposition::label: return "label";
    case Disposition::record_closed: return "record_closed";
    case Disposition::record_installation: return "record_installation";
  }
  return "ignored";
}

lb::IssueInput to_issue_input(const Event& e) {
  lb::IssueInput in;
  in.title = e.title;
  in.body = e.body;
  in.labels = e.labels;
  in.repo = e.repo;
  in.number = e.number;
  return in;
}

std::vector<schema::NewAction> plan_label_actions(const Event& e, const lb::LabelResult& result,
                                                  const lb::Taxonomy& taxonomy, const std::set<std::string>& suppressed,
                                                  std::string comment) {
  std::set<std::string> present, removed;
  for (const auto& l : e.labels) {
    present.insert(lower(l));
    if (auto c = taxonomy.canonical_label(l)) present.insert(lower(*c));
  }
  for (const auto& l : suppressed) removed.insert(lower(l));
  std::vector<std::string> to_add;
  for (const auto& l : result.labels) {
    const auto key = lower(l);
    if (present.count(key) || removed.count(key)) continue;
    if (std::find(to_add.begin(), to_add.end(), l) == to_add.end()) to_add.push_back(l);
  }
  std::vector<schema::NewAction> out;
  for (const auto& l : to_add) {
    out.push_back(
        {e.repo, e.number, schema::OutboxKind::create_label, json{{"name", l}, {"color", taxonomy.color_for(l)}}});
  }
  if (!to_add.empty()) out.push_back({e.repo, e.number, schema::OutboxKind::add_labels, json{{"labels", to_add}}});
  out.push_back({e.repo, e.number, schema::OutboxKind::upsert_comment, json{{"body", std::move(comment)}}});
  return out;
}

}  // namespace perftriage::server::webhook
