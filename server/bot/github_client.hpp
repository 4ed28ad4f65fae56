#pragma once
// GitHub REST over libcurl: a configurable base URL (github.com, Enterprise Server's /api/v3, or a test's fake),
// a token or a GitHub App's installation tokens (github_app.hpp), the documented headers and timeouts. One blocking
// request at a time per client; the outbox worker decides what to do with each answer.
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/bot/github_app.hpp"
#include "server/bot/github_names.hpp"

namespace perftriage::server {

struct GitHubResponse {
  long status = 0;  // 0: no HTTP answer (timeout, connection refused); transport_error says why
  std::map<std::string, std::string> headers;  // lower-case names: retry-after, x-ratelimit-remaining, ...
  std::string body;
  std::string transport_error;
  bool too_large = false;  // the body went past GitHubClientConfig::max_response_bytes (status 0)
  // Not sent: a repository name or number failed github_names.hpp's check (status 0, transport_error says which).
  // Retrying cannot help, so the outbox worker marks the action failed at once.
  bool refused = false;

  [[nodiscard]] bool ok() const noexcept { return status >= 200 && status < 300; }
  [[nodiscard]] std::string header(const std::string& lower_name) const;
  [[nodiscard]] nlohmann::json json() const;  // discarded value when the body is not JSON
};

// An answer for a request that was not sent because retrying cannot help (GitHubResponse::refused): the outbox fails
// it at once with "not sent: <why>".
GitHubResponse not_sent(std::string why);

struct GitHubClientConfig {
  std::string api_base = "https://api.github.com";
  std::string token;
  // Set: requests authenticate as the App (its installation token per repository; a 401 mints a new token and the
  // request is sent once more), and `token` is not used.
  std::shared_ptr<GitHubAppAuth> app;
  long connect_timeout_ms = 5000;
  long total_timeout_ms = 20000;
  std::string user_agent = "perftriage-bot";
  std::size_t max_response_bytes = 0;  // a larger answer body is cut off: status 0, transport_error says so (0 = any)
};

class GitHubClient {
 public:
  explicit GitHubClient(GitHubClientConfig config);
  ~GitHubClient();
  GitHubClient(const GitHubClient&) = delete;
  GitHubClient& operator=(const GitHubClient&) = delete;

  // `path` starts with '/'; `body` is sent as JSON when given.
  GitHubResponse request(std::string_view method, std::string_view path,
                         const std::optional<nlohmann::json>& body = std::nullopt);

  // Each of these builds its URL path from `repo` (and the number it takes): a repository name outside GitHub's
  // grammar, or an issue or comment number below 1, is not sent (GitHubResponse::refused).
  GitHubResponse add_labels(std::string_view repo, std::int64_t number, const std::vector<std::string>& labels);
  GitHubResponse create_label(std::string_view repo, std::string_view name, std::string_view color);
  GitHubResponse list_comments(std::string_view repo, std::int64_t number, int page);
  GitHubResponse create_comment(std::string_view repo, std::int64_t number, std::string_view body);
  GitHubResponse update_comment(std::string_view repo, std::int64_t comment_id, std::string_view body);
  GitHubResponse create_issue(std::string_view repo, const nlohmann::json& issue);
  GitHubResponse update_issue(std::string_view repo, std::int64_t number, const nlohmann::json& issue);
  // POST /repos/{repo}/check-runs (GitHub Apps only); POST /repos/{repo}/statuses/{sha} (any token with push access
  // or statuses: write). A `sha` that is not 7-40 lower-case hex digits is not sent.
  GitHubResponse create_check_run(std::string_view repo, const nlohmann::json& check_run);
  GitHubResponse create_status(std::string_view repo, std::string_view sha, const nlohmann::json& status);
  // GET /repos/{repo}/issues?state=all&sort=updated&direction=asc|desc&per_page=N&page=P[&since=ISO]: issues and
  // pull requests updated at or after `since` ("" = all), least recently updated first (a sync that resumes where it
  // stopped) or most recently first (a search for something just done).
  enum class Order { least_recent_first, most_recent_first };
  GitHubResponse list_issues(std::string_view repo, std::string_view since_iso, int page, int per_page = 100,
                             Order order = Order::least_recent_first);

  // A request in flight is aborted (status 0) soon after *flag becomes true: shutdown need not wait for a timeout.
  void set_abort_flag(const std::atomic<bool>* flag) noexcept { abort_ = flag; }

 private:
  // One HTTP exchange; `authorization` is the header's value ("" = none).
  GitHubResponse send(std::string_view method, std::string_view path, const std::string& authorization,
                      const std::optional<nlohmann::json>& body);

  GitHubClientConfig config_;
  void* curl_ = nullptr;  // CURL*, reused so connections are kept alive
  const std::atomic<bool>* abort_ = nullptr;
};

// The id of the first comment in a page of GET .../comments whose body starts with `marker`; nullopt when none.
std::optional<std::int64_t> find_marked_comment(const nlohmann::json& comments, std::string_view marker);

// The number of the first issue in a page of GET /repos/{repo}/issues that `author` opened (case-insensitive login)
// and whose body holds `marker`; pull requests are skipped. nullopt when none.
std::optional<std::int64_t> find_marked_issue(const nlohmann::json& issues, std::string_view marker,
                                              std::string_view author);

}  // namespace perftriage::server
