#include "server/bot/github_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <variant>

#include <fmt/format.h>

#include "common/strings.hpp"
#include "server/http/http_types.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;

// The body collected so far and its limit (0 = none): past it the transfer is aborted (CURLE_WRITE_ERROR).
struct BodySink {
  std::string* body;
  std::size_t max_bytes;
  bool over = false;
};

std::size_t write_body(char* data, std::size_t size, std::size_t n, void* user) {
  auto* sink = static_cast<BodySink*>(user);
  if (sink->max_bytes != 0 && sink->body->size() + size * n > sink->max_bytes) {
    sink->over = true;
    return 0;
  }
  sink->body->append(data, size * n);
  return size * n;
}

std::size_t write_header(char* data, std::size_t size, std::size_t n, void* user) {
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  std::string_view line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) headers->clear();  // a new response (after 100-continue or a redirect)
  auto colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    auto value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
      value.remove_suffix(1);
    (*headers)[name] = std::string(value);
  }
  return size * n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* flag = static_cast<const std::atomic<bool>*>(user);
  return flag && flag->load() ? 1 : 0;
}

// Defence in depth behind the webhook's checks: a path built from a name outside GitHub's grammar ("../../x") or a
// number GitHub never assigns (-1) could reach another endpoint with the token, so such a request is never sent.
std::optional<GitHubResponse> refusal(std::string_view repo, std::optional<std::int64_t> number = std::nullopt) {
  std::string why;
  if (!is_github_repo(repo)) {
    why = "not a GitHub repository name (owner/name): '" + std::string(repo) + "'";
  } else if (number && !is_github_number(*number)) {
    why = "not a GitHub issue or comment number: " + std::to_string(*number);
  } else {
    return std::nullopt;
  }
  return not_sent(std::move(why));
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

}  // namespace

GitHubResponse not_sent(std::string why) {
  GitHubResponse r;
  r.refused = true;
  r.transport_error = "not sent: " + std::move(why);
  return r;
}

std::string GitHubResponse::header(const std::string& lower_name) const {
  auto it = headers.find(lower_name);
  return it == headers.end() ? std::string{} : it->second;
}

nlohmann::json GitHubResponse::json() const { return nlohmann::json::parse(body, nullptr, false); }

GitHubClient::GitHubClient(GitHubClientConfig config) : config_(std::move(config)) {
  global_init();
  curl_ = curl_easy_init();
  while (!config_.api_base.empty() && config_.api_base.back() == '/') config_.api_base.pop_back();
}

GitHubClient::~GitHubClient() {
  if (curl_) curl_easy_cleanup(static_cast<CURL*>(curl_));
}

GitHubResponse GitHubClient::request(std::string_view method, std::string_view path,
                                     const std::optional<nlohmann::json>& body) {
  if (!config_.app) return send(method, path, config_.token.empty() ? "" : "Bearer " + config_.token, body);
  const auto send_plain = [&](std::string_view m, std::string_view p, const std::string& authorization) {
    return send(m, p, authorization, std::nullopt);
  };
  for (int attempt = 1;; ++attempt) {
    auto authorization = config_.app->authorization(path, send_plain);
    if (auto* failed = std::get_if<GitHubResponse>(&authorization)) return std::move(*failed);
    auto answer = send(method, path, std::get<std::string>(authorization), body);
    // An installation token can be revoked before it expires (the App's key rotated, the installation suspended).
    if (answer.status != 401 || attempt == 2) return answer;
    config_.app->unauthorized(path);
  }
}

GitHubResponse GitHubClient::send(std::string_view method, std::string_view path, const std::string& authorization,
                                  const std::optional<nlohmann::json>& body) {
  GitHubResponse out;
  auto* curl = static_cast<CURL*>(curl_);
  if (!curl) {
    out.transport_error = "curl_easy_init failed";
    return out;
  }
  curl_easy_reset(curl);
  const std::string url = config_.api_base + std::string(path);
  const std::string payload = body ? dump_json(*body) : std::string{};
  const std::string method_s(method);
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/vnd.github+json");
  headers = curl_slist_append(headers, "X-GitHub-Api-Version: 2022-11-28");
  if (!authorization.empty()) headers = curl_slist_append(headers, ("Authorization: " + authorization).c_str());
  if (body) headers = curl_slist_append(headers, "Content-Type: application/json");
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method_s.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, config_.user_agent.c_str());
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, config_.connect_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, config_.total_timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // we run on a worker thread
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  if (body) {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, payload.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
  } else if (method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  }
  if (abort_) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, abort_);
  }
  BodySink sink{&out.body, config_.max_response_bytes};
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, write_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, write_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &out.headers);
  const CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  if (rc != CURLE_OK) {
    out.status = 0;
    out.transport_error = sink.over ? "answer over " + std::to_string(config_.max_response_bytes) + " bytes"
                                    : std::string(curl_easy_strerror(rc));
    out.transport_error += " (" + method_s + " " + url + ")";
    out.body.clear();
    out.too_large = sink.over;
    return out;
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
  return out;
}

GitHubResponse GitHubClient::add_labels(std::string_view repo, std::int64_t number,
                                        const std::vector<std::string>& labels) {
  if (auto refused = refusal(repo, number)) return *refused;
  return request("POST", "/repos/" + std::string(repo) + "/issues/" + std::to_string(number) + "/labels",
                 json{{"labels", labels}});
}

GitHubResponse GitHubClient::create_label(std::string_view repo, std::string_view name, std::string_view color) {
  if (auto refused = refusal(repo)) return *refused;
  return request("POST", "/repos/" + std::string(repo) + "/labels", json{{"name", name}, {"color", color}});
}

GitHubResponse GitHubClient::list_comments(std::string_view repo, std::int64_t number, int page) {
  if (auto refused = refusal(repo, number)) return *refused;
  return request("GET", "/repos/" + std::string(repo) + "/issues/" + std::to_string(number) +
                            "/comments?per_page=100&page=" + std::to_string(page));
}

GitHubResponse GitHubClient::list_issues(std::string_view repo, std::string_view since_iso, int page, int per_page,
                                         Order order) {
  if (auto refused = refusal(repo)) return *refused;
  std::string path = "/repos/" + std::string(repo) + "/issues?state=all&sort=updated&direction=" +
                     (order == Order::most_recent_first ? "desc" : "asc") + "&per_page=" + std::to_string(per_page) +
                     "&page=" + std::to_string(page);
  if (!since_iso.empty()) {
    path += "&since=";
    for (const char c : since_iso) {  // an ISO 8601 time; an offset's '+' would read as a space unescaped
      const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == ':' || c == '_';
      path += plain ? std::string(1, c) : fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return request("GET", path);
}

GitHubResponse GitHubClient::create_comment(std::string_view repo, std::int64_t number, std::string_view body) {
  if (auto refused = refusal(repo, number)) return *refused;
  return request("POST", "/repos/" + std::string(repo) + "/issues/" + std::to_string(number) + "/comments",
                 json{{"body", body}});
}

GitHubResponse GitHubClient::update_comment(std::string_view repo, std::int64_t comment_id, std::string_view body) {
  if (auto refused = refusal(repo, comment_id)) return *refused;
  return request("PATCH", "/repos/" + std::string(repo) + "/issues/comments/" + std::to_string(comment_id),
                 json{{"body", body}});
}

GitHubResponse GitHubClient::create_issue(std::string_view repo, const nlohmann::json& issue) {
  if (auto refused = refusal(repo)) return *refused;
  return request("POST", "/repos/" + std::string(repo) + "/issues", issue);
}

GitHubResponse GitHubClient::update_issue(std::string_view repo, std::int64_t number, const nlohmann::json& issue) {
  if (auto refused = refusal(repo, number)) return *refused;
  return request("PATCH", "/repos/" + std::string(repo) + "/issues/" + std::to_string(number), issue);
}

GitHubResponse GitHubClient::create_check_run(std::string_view repo, const nlohmann::json& check_run) {
  if (auto refused = refusal(repo)) return *refused;
  return request("POST", "/repos/" + std::string(repo) + "/check-runs", check_run);
}

GitHubResponse GitHubClient::create_status(std::string_view repo, std::string_view sha, const nlohmann::json& status) {
  if (auto refused = refusal(repo)) return *refused;
  if (!is_commit_sha(sha)) return not_sent("not a commit SHA (7-40 hex digits): '" + std::string(sha) + "'");
  return request("POST", "/repos/" + std::string(repo) + "/statuses/" + std::string(sha), status);
}

std::optional<std::int64_t> find_marked_comment(const nlohmann::json& comments, std::string_view marker) {
  if (!comments.is_array() || marker.empty()) return std::nullopt;
  for (const auto& c : comments) {
    if (!c.is_object()) continue;
    auto body = c.find("body");
    auto id = c.find("id");
    if (body == c.end() || !body->is_string() || id == c.end() || !id->is_number_integer()) continue;
    std::string_view b = body->get_ref<const std::string&>();
    while (!b.empty() && std::isspace(static_cast<unsigned char>(b.front()))) b.remove_prefix(1);
    if (b.substr(0, marker.size()) == marker) return id->get<std::int64_t>();
  }
  return std::nullopt;
}

std::optional<std::int64_t> find_marked_issue(const nlohmann::json& issues, std::string_view marker,
                                              std::string_view author) {
  if (!issues.is_array() || marker.empty()) return std::nullopt;
  for (const auto& i : issues) {
    if (!i.is_object() || i.contains("pull_request")) continue;
    auto body = i.find("body");
    auto number = i.find("number");
    if (body == i.end() || !body->is_string() || number == i.end() || !number->is_number_integer()) continue;
    const auto user = i.find("user");
    const bool by_author = user != i.end() && user->is_object() && user->contains("login") &&
                           (*user)["login"].is_string() &&
                           iequals((*user)["login"].get_ref<const std::string&>(), author);
    if (by_author && body->get_ref<const std::string&>().find(marker) != std::string::npos) {
      return number->get<std::int64_t>();
    }
  }
  return std::nullopt;
}

}  // namespace perftriage::server
