#pragma once
// A fake GitHub REST API on 127.0.0.1 for the bot's end-to-end tests: real HTTP (Beast, one thread per connection:
// fake_github.cpp), a little state (repo labels, issue labels, comments, issues), every request recorded, and scripted
// faults.
#include <re2/re2.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <optional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace perftriage::testing {

// `t` as GitHub writes a time: "YYYY-MM-DDTHH:MM:SSZ", UTC.
inline std::string github_time(std::time_t t) {
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

class FakeGitHub {
 public:
  enum class Fault {
    error500,         // 500 {"message": "..."}
    rate_limit_403,   // 403, x-ratelimit-remaining: 0, x-ratelimit-reset: now + 2 s
    retry_after_429,  // 429, retry-after: 1
    hang,             // no answer for hang_ms (longer than the client's timeout), effect not applied
    apply_then_hang,  // the effect is applied, then no answer: the client cannot know it worked
  };
  struct Request {
    std::string method, target, body;
    std::map<std::string, std::string> headers;  // lower-case names
    std::chrono::steady_clock::time_point at;
  };
  struct Comment {
    std::int64_t id = 0;
    std::string body;
  };

  FakeGitHub();
  ~FakeGitHub();
  FakeGitHub(const FakeGitHub&) = delete;
  FakeGitHub& operator=(const FakeGitHub&) = delete;

  [[nodiscard]] unsigned short port() const { return port_; }
  [[nodiscard]] std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // The next `times` requests whose method is `method` and whose target matches `path_regex` get `fault`.
  void fail_next(std::string method, std::string path_regex, Fault fault, int times = 1) {
    std::lock_guard lock(mutex_);
    rules_.push_back({std::move(method), std::make_shared<const RE2>(path_regex), fault, times});
  }
  void set_hang_ms(int ms) { hang_ms_ = ms; }

  std::vector<Request> requests() {
    std::lock_guard lock(mutex_);
    return requests_;
  }
  // Requests with this method whose target matches `path_regex`.
  std::vector<Request> requests(const std::string& method, const std::string& path_regex) {
    std::lock_guard lock(mutex_);
    std::vector<Request> out;
    const RE2 re(path_regex);
    for (const auto& r : requests_)
      if (r.method == method && RE2::PartialMatch(r.target, re)) out.push_back(r);
    return out;
  }
  std::vector<std::string> issue_labels(const std::string& repo, std::int64_t n) {
    std::lock_guard lock(mutex_);
    auto& s = issue_labels_[key(repo, n)];
    return {s.begin(), s.end()};
  }
  void remove_issue_label(const std::string& repo, std::int64_t n, const std::string& label) {
    std::lock_guard lock(mutex_);
    issue_labels_[key(repo, n)].erase(label);
  }
  std::vector<Comment> comments(const std::string& repo, std::int64_t n) {
    std::lock_guard lock(mutex_);
    return comments_[key(repo, n)];
  }
  std::map<std::string, std::string> repo_labels(const std::string& repo) {
    std::lock_guard lock(mutex_);
    return repo_labels_[repo];
  }
  std::map<std::int64_t, nlohmann::json> issues(const std::string& repo) {
    std::lock_guard lock(mutex_);
    return issues_[repo];
  }
  // An item GET /repos/{repo}/issues lists (an issue, or a pull request when it has a "pull_request" key), replacing
  // the one with the same "number". It needs "number" and "updated_at" (GitHub's "YYYY-MM-DDTHH:MM:SSZ").
  void seed_issue(const std::string& repo, nlohmann::json item) {
    const auto number = item.at("number").get<std::int64_t>();
    std::lock_guard lock(mutex_);
    listed_[repo][number] = std::move(item);
  }
  // Whether the issue list answers with a `link` header (GitHub sends one when there is more than one page).
  void set_issue_links(bool on) { issue_links_ = on; }

  // App mode (fake_github_app.cpp): requests must authenticate as a GitHub App does. /app/... and
  // GET /repos/{repo}/installation take a JWT whose RS256 signature verifies with `public_key_pem`, whose `iss` is
  // `app_id`, which has not expired and lives at most 10 minutes; every other /repos/{repo}/... request takes a live
  // token minted for the installation that covers the repository. Anything else is 401, as GitHub answers. An empty
  // `app_id` turns App mode off again (any token is taken).
  void enable_app(std::string app_id, std::string public_key_pem, int token_ttl_s = 3600);
  void install(const std::string& repo, std::int64_t installation_id) {
    std::lock_guard lock(mutex_);
    installed_[repo] = installation_id;
  }
  void uninstall(const std::string& repo) {
    std::lock_guard lock(mutex_);
    installed_.erase(repo);
  }
  // Every token minted so far answers 401 from now on (as after the App's key was rotated).
  void revoke_tokens() {
    std::lock_guard lock(mutex_);
    tokens_.clear();
  }
  int tokens_minted() {
    std::lock_guard lock(mutex_);
    return minted_;
  }
  // Checks and statuses posted (POST .../check-runs, POST .../statuses/{sha}: the body, with "sha" added to a
  // status). Check runs need App mode and the checks permission; without it GitHub answers 403, as here.
  std::vector<nlohmann::json> check_runs(const std::string& repo) {
    std::lock_guard lock(mutex_);
    return check_runs_[repo];
  }
  std::vector<nlohmann::json> statuses(const std::string& repo) {
    std::lock_guard lock(mutex_);
    return statuses_[repo];
  }
  void set_checks_permission(bool granted) {
    std::lock_guard lock(mutex_);
    checks_permission_ = granted;
  }
  // What the last request that failed authentication was told (the 401's message), "" when none failed.
  std::string last_auth_failure() {
    std::lock_guard lock(mutex_);
    return last_auth_failure_;
  }

 private:
  // An answer before it is written (fake_github.cpp turns it into Beast's response).
  struct Reply {
    unsigned status = 200;
    std::string body;
    std::vector<std::pair<std::string, std::string>> headers;
    void set(std::string name, std::string value) { headers.emplace_back(std::move(name), std::move(value)); }
  };
  struct Net;     // the io_context and the acceptor
  struct Socket;  // one accepted connection
  struct Rule {
    std::string method;
    std::shared_ptr<const RE2> path;  // RE2 is neither copyable nor movable
    Fault fault;
    int times;
  };

  static std::string key(const std::string& repo, std::int64_t n) { return repo + "#" + std::to_string(n); }

  void accept_loop();
  void serve(Socket& connection);
  static Reply reply(unsigned status, const nlohmann::json& body);
  // The GitHub behaviour the bot relies on.
  Reply apply(const Request& r);
  // An issue opened or edited through the API is listed as GitHub lists it: by the bot, updated now.
  void list_opened(const std::string& repo, std::int64_t number, const nlohmann::json& issue);
  // The query of a request target, percent-decoded ('+' is a space, as a form query).
  static std::map<std::string, std::string> query_of(const std::string& target);
  // GET /repos/{repo}/issues: state=all only, sort=updated (ties by number), direction asc|desc, since (inclusive,
  // as GitHub's), per_page (default 30, at most 100), page (from 1), and a link header naming next / last pages.
  Reply list_issues(const std::string& repo, const std::string& target);
  // App mode: the answer to a request that is not authenticated as it must be, or to one of the App's own endpoints;
  // nullopt lets the request through. Called with mutex_ held.
  std::optional<Reply> app_gate(const Request& r);
  std::string verify_jwt(const std::string& authorization) const;  // "" when valid, else why not
  struct Token {
    std::int64_t installation = 0;
    std::time_t expires = 0;
  };

  std::unique_ptr<Net> net_;
  unsigned short port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> hang_ms_{3000};
  std::mutex mutex_;
  std::condition_variable cv_;
  std::thread accept_thread_;
  std::vector<std::thread> threads_;
  std::set<int> open_fds_;
  std::vector<Rule> rules_;
  std::vector<Request> requests_;
  std::map<std::string, std::map<std::string, std::string>> repo_labels_;
  std::map<std::string, std::set<std::string>> issue_labels_;
  std::map<std::string, std::vector<Comment>> comments_;
  std::map<std::string, std::map<std::int64_t, nlohmann::json>> issues_;
  std::map<std::string, std::map<std::int64_t, nlohmann::json>> listed_;  // what GET .../issues lists
  std::atomic<bool> issue_links_{true};
  std::int64_t next_id_ = 1000;
  std::string app_id_, app_public_key_;  // app_id_ empty: App mode off, any request is let through
  int token_ttl_s_ = 3600;
  std::map<std::string, std::int64_t> installed_;  // repo -> installation
  std::map<std::string, Token> tokens_;            // minted installation tokens
  int minted_ = 0;
  std::string last_auth_failure_;
  std::map<std::string, std::vector<nlohmann::json>> check_runs_, statuses_;
  bool checks_permission_ = true;
};

}  // namespace perftriage::testing
