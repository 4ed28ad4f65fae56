#include "server/bot/webhook.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>

#include "common/strings.hpp"

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
  if (e.name != "issues" && e.name != "issue_comment") return e;
  const json& issue = obj_at(payload, "issue");
  auto number = issue.is_object() ? issue.find("number") : json::const_iterator{};
  if (e.repo.empty() || !issue.is_object() || number == issue.end() || !number->is_number_integer()) {
    return make_error(ErrorKind::invalid_input, "bad_payload",
                      "an " + e.name + " event needs repository.full_name and issue.number");
  }
  e.number = number->get<std::int64_t>();
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
  if (!bot_login.empty() && lower(e.sender) == lower(bot_login)) return Disposition::ignored_self;
  if (e.name == "issues") {
    if (e.action == "opened" || e.action == "edited" || e.action == "reopened") return Disposition::label;
    if (e.action == "labeled" && !e.label.empty()) return Disposition::record_labeled;
    if (e.action == "unlabeled" && !e.label.empty()) return Disposition::record_unlabeled;
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
