// The fake GitHub's server side (fake_github.hpp): Beast's HTTP read and write, compiled once for the bot suites.
#include "tests/e2e/bot/fake_github.hpp"

#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <ctime>
#include <sstream>

namespace perftriage::testing {

namespace beast_http = boost::beast::http;

struct FakeGitHub::Net {
  boost::asio::io_context ioc;
  boost::asio::ip::tcp::acceptor acceptor{ioc, {boost::asio::ip::make_address("127.0.0.1"), 0}};
};
struct FakeGitHub::Socket {
  boost::asio::ip::tcp::socket socket;
};

FakeGitHub::FakeGitHub() : net_(std::make_unique<Net>()) {
  port_ = net_->acceptor.local_endpoint().port();
  accept_thread_ = std::thread([this] { accept_loop(); });
}
FakeGitHub::~FakeGitHub() {
  stopping_ = true;
  cv_.notify_all();
  {  // unblock accept() with a connection of our own
    boost::asio::io_context ioc;
    boost::asio::ip::tcp::socket s(ioc);
    boost::system::error_code ec;
    s.connect({boost::asio::ip::make_address("127.0.0.1"), port_}, ec);
  }
  accept_thread_.join();
  {
    std::lock_guard lock(mutex_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (auto& t : threads_) t.join();
}

void FakeGitHub::accept_loop() {
  while (!stopping_) {
    boost::system::error_code ec;
    boost::asio::ip::tcp::socket socket(net_->ioc);
    net_->acceptor.accept(socket, ec);
    if (ec || stopping_) break;
    std::lock_guard lock(mutex_);
    open_fds_.insert(socket.native_handle());
    threads_.emplace_back([this, s = std::make_shared<Socket>(Socket{std::move(socket)})] { serve(*s); });
  }
}

void FakeGitHub::serve(Socket& connection) {
  auto& socket = connection.socket;
  const int fd = socket.native_handle();
  boost::beast::flat_buffer buffer;
  while (!stopping_) {
    beast_http::request<beast_http::string_body> req;
    boost::system::error_code ec;
    beast_http::read(socket, buffer, req, ec);
    if (ec) break;
    Request rec{
        std::string(req.method_string()), std::string(req.target()), req.body(), {}, std::chrono::steady_clock::now()};
    for (const auto& f : req) {
      std::string name(f.name_string());
      for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      rec.headers[name] = std::string(f.value());
    }
    std::optional<Fault> fault;
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(rec);
      for (auto it = rules_.begin(); it != rules_.end(); ++it) {
        if (it->method == rec.method && RE2::PartialMatch(rec.target, *it->path)) {
          fault = it->fault;
          if (--it->times <= 0) rules_.erase(it);
          break;
        }
      }
    }
    Reply res;
    if (fault == Fault::hang || fault == Fault::apply_then_hang) {
      if (fault == Fault::apply_then_hang) apply(rec);
      std::unique_lock lock(mutex_);
      cv_.wait_for(lock, std::chrono::milliseconds(hang_ms_.load()), [this] { return stopping_.load(); });
      break;  // close without an answer
    }
    if (fault == Fault::error500) {
      res = reply(500, {{"message", "Server Error"}});
    } else if (fault == Fault::rate_limit_403) {
      res = reply(403, {{"message", "API rate limit exceeded"}});
      res.set("x-ratelimit-remaining", "0");
      res.set("x-ratelimit-reset", std::to_string(std::time(nullptr) + 2));
    } else if (fault == Fault::retry_after_429) {
      res = reply(429, {{"message", "You have exceeded a secondary rate limit"}});
      res.set("retry-after", "1");
    } else {
      res = apply(rec);
    }
    beast_http::response<beast_http::string_body> out{static_cast<beast_http::status>(res.status), 11};
    for (const auto& [name, value] : res.headers) out.set(name, value);
    out.body() = std::move(res.body);
    out.prepare_payload();
    out.keep_alive(req.keep_alive());
    beast_http::write(socket, out, ec);
    if (ec || !req.keep_alive()) break;
  }
  std::lock_guard lock(mutex_);
  open_fds_.erase(fd);
}

FakeGitHub::Reply FakeGitHub::reply(unsigned status, const nlohmann::json& body) {
  Reply res{status, body.dump(), {}};
  res.set("content-type", "application/json");
  res.set("x-ratelimit-remaining", "4999");
  return res;
}

FakeGitHub::Reply FakeGitHub::apply(const Request& r) {
  static const RE2 kRepoLabels(R"(^/repos/([^/]+/[^/]+)/labels$)");
  static const RE2 kIssueLabels(R"(^/repos/([^/]+/[^/]+)/issues/(\d+)/labels$)");
  static const RE2 kComments(R"(^/repos/([^/]+/[^/]+)/issues/(\d+)/comments(\?.*)?$)");
  static const RE2 kComment(R"(^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$)");
  static const RE2 kIssues(R"(^/repos/([^/]+/[^/]+)/issues$)");
  static const RE2 kIssue(R"(^/repos/([^/]+/[^/]+)/issues/(\d+)$)");
  static const RE2 kIssueList(R"(^/repos/([^/]+/[^/]+)/issues(?:\?.*)?$)");
  const auto body = nlohmann::json::parse(r.body.empty() ? "{}" : r.body, nullptr, false);
  std::string repo, num;
  std::lock_guard lock(mutex_);
  if (r.method == "POST" && r.target == "/notify") return reply(200, nlohmann::json::object());  // [notify] urls
  if (auto answered = app_gate(r)) return *answered;
  if (r.method == "GET" && RE2::FullMatch(r.target, kIssueList, &repo)) return list_issues(repo, r.target);
  static const RE2 kCheckRuns(R"(^/repos/([^/]+/[^/]+)/check-runs$)");
  static const RE2 kStatuses(R"(^/repos/([^/]+/[^/]+)/statuses/([0-9a-f]{7,40})$)");
  if (r.method == "POST" && RE2::FullMatch(r.target, kCheckRuns, &repo)) {
    if (app_id_.empty()) return reply(403, {{"message", "Resource not accessible by personal access token"}});
    if (!checks_permission_) return reply(403, {{"message", "Resource not accessible by integration"}});
    check_runs_[repo].push_back(body);
    return reply(201, {{"id", ++next_id_}});
  }
  std::string sha;
  if (r.method == "POST" && RE2::FullMatch(r.target, kStatuses, &repo, &sha)) {
    auto status = body;
    status["sha"] = sha;
    statuses_[repo].push_back(std::move(status));
    return reply(201, {{"id", ++next_id_}});
  }
  if (r.method == "POST" && RE2::FullMatch(r.target, kRepoLabels, &repo)) {
    auto& labels = repo_labels_[repo];
    const std::string name = body.value("name", "");
    if (labels.count(name)) {
      return reply(422, {{"message", "Validation Failed"},
                         {"errors", {{{"resource", "Label"}, {"code", "already_exists"}, {"field", "name"}}}}});
    }
    labels[name] = body.value("color", "");
    return reply(201, {{"name", name}, {"color", labels[name]}});
  }
  if (r.method == "POST" && RE2::FullMatch(r.target, kIssueLabels, &repo, &num)) {
    auto& labels = issue_labels_[key(repo, std::stoll(num))];
    for (const auto& l : body.value("labels", nlohmann::json::array())) labels.insert(l.get<std::string>());
    nlohmann::json out = nlohmann::json::array();
    for (const auto& l : labels) out.push_back({{"name", l}});
    return reply(200, out);
  }
  if (r.method == "GET" && RE2::FullMatch(r.target, kComments, &repo, &num)) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : comments_[key(repo, std::stoll(num))])
      out.push_back({{"id", c.id}, {"body", c.body}, {"user", {{"login", "perftriage[bot]"}}}});
    return reply(200, out);
  }
  if (r.method == "POST" && RE2::FullMatch(r.target, kComments, &repo, &num)) {
    const Comment c{next_id_++, body.value("body", "")};
    comments_[key(repo, std::stoll(num))].push_back(c);
    return reply(201, {{"id", c.id}, {"body", c.body}});
  }
  if (r.method == "PATCH" && RE2::FullMatch(r.target, kComment, &repo, &num)) {
    const auto id = std::stoll(num);
    for (auto& [k, list] : comments_)
      for (auto& c : list)
        if (c.id == id) {
          c.body = body.value("body", "");
          return reply(200, {{"id", c.id}, {"body", c.body}});
        }
    return reply(404, {{"message", "Not Found"}});
  }
  if (r.method == "POST" && RE2::FullMatch(r.target, kIssues, &repo)) {
    auto& issues = issues_[repo];
    const std::int64_t number = 100 + static_cast<std::int64_t>(issues.size());
    issues[number] = body;
    list_opened(repo, number, body);
    return reply(201, {{"number", number}});
  }
  if (r.method == "PATCH" && RE2::FullMatch(r.target, kIssue, &repo, &num)) {
    auto& issues = issues_[repo];
    const auto number = std::stoll(num);
    if (!issues.count(number)) return reply(404, {{"message", "Not Found"}});
    issues[number].update(body);
    list_opened(repo, number, issues[number]);
    return reply(200, {{"number", number}});
  }
  return reply(404, {{"message", "Not Found"}});
}

void FakeGitHub::list_opened(const std::string& repo, std::int64_t number, const nlohmann::json& issue) {
  listed_[repo][number] = {{"number", number},
                           {"title", issue.value("title", "")},
                           {"body", issue.value("body", "")},
                           {"state", issue.value("state", "open")},
                           {"user", {{"login", "perftriage[bot]"}}},
                           {"updated_at", github_time(std::time(nullptr))}};
}

std::map<std::string, std::string> FakeGitHub::query_of(const std::string& target) {
  std::map<std::string, std::string> out;
  const auto q = target.find('?');
  if (q == std::string::npos) return out;
  auto decode = [](const std::string& s) {
    std::string d;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '%' && i + 2 < s.size()) {
        d += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
        i += 2;
      } else {
        d += s[i] == '+' ? ' ' : s[i];
      }
    }
    return d;
  };
  std::stringstream ss(target.substr(q + 1));
  for (std::string pair; std::getline(ss, pair, '&');) {
    const auto eq = pair.find('=');
    out[decode(pair.substr(0, eq))] = eq == std::string::npos ? "" : decode(pair.substr(eq + 1));
  }
  return out;
}

FakeGitHub::Reply FakeGitHub::list_issues(const std::string& repo, const std::string& target) {
  auto q = query_of(target);
  const std::string since = q["since"];
  std::vector<const nlohmann::json*> items;
  for (const auto& entry : listed_[repo]) {
    if (since.empty() || entry.second.value("updated_at", "") >= since) items.push_back(&entry.second);
  }
  std::stable_sort(items.begin(), items.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
    return a->value("updated_at", "") < b->value("updated_at", "");
  });
  if (q["direction"] == "desc") std::reverse(items.begin(), items.end());
  const std::size_t per_page = std::clamp(q["per_page"].empty() ? 30 : std::stoi(q["per_page"]), 1, 100);
  const std::size_t page = std::max(q["page"].empty() ? 1 : std::stoi(q["page"]), 1);
  const std::size_t pages = (items.size() + per_page - 1) / per_page;
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t i = (page - 1) * per_page; i < items.size() && i < page * per_page; ++i) out.push_back(*items[i]);
  Reply res = reply(200, out);
  if (issue_links_ && pages > 1) {
    auto url = [&](std::size_t n) {
      std::string base = target.substr(0, target.find('?')) + "?";
      for (const auto& kv : q)
        if (kv.first != "page") base += kv.first + "=" + kv.second + "&";
      return "<" + base_url() + base + "page=" + std::to_string(n) + ">";
    };
    std::string link;
    if (page < pages) link = url(page + 1) + "; rel=\"next\", " + url(pages) + "; rel=\"last\"";
    if (page > 1) link += (link.empty() ? "" : ", ") + url(page - 1) + "; rel=\"prev\", " + url(1) + "; rel=\"first\"";
    res.set("link", link);
  }
  return res;
}

}  // namespace perftriage::testing
