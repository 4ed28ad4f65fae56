#include "server/bot/outbox_worker.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>

#include "analyzers/labeler/labeler.hpp"
#include "common/log.hpp"
#include "common/strings.hpp"
#include "schema/app_installation_store.hpp"
#include "schema/store.hpp"
#include "schema/task_lock.hpp"
#include "server/bot/tracking.hpp"

namespace perftriage::server {
namespace {

using nlohmann::json;
using schema::OutboxKind;

std::optional<std::int64_t> header_int(const GitHubResponse& r, const std::string& name) {
  const std::string v = r.header(name);
  std::int64_t out = 0;
  if (v.empty() || std::from_chars(v.data(), v.data() + v.size(), out).ec != std::errc()) return std::nullopt;
  return out;
}

std::string describe(const GitHubResponse& r) {
  if (r.status == 0) return r.transport_error.empty() ? "no answer" : r.transport_error;
  std::string msg;
  if (auto j = r.json(); j.is_object() && j.contains("message") && j["message"].is_string()) {
    msg = j["message"].get<std::string>();
  } else {
    msg = r.body.substr(0, 200);
  }
  return "HTTP " + std::to_string(r.status) + (msg.empty() ? "" : ": " + msg);
}

bool is_secondary_limit(const GitHubResponse& r) {
  return r.status == 403 && r.body.find("secondary rate limit") != std::string::npos;
}

// Writes are small and each is its own BEGIN IMMEDIATE transaction.
template <class F>
Result<void> in_transaction(schema::Database& db, F&& write) {
  PT_ASSIGN(auto tx, schema::Transaction::begin(db));
  PT_TRY(write());
  return tx.commit();
}

std::vector<std::string> string_list(const json& j) {
  std::vector<std::string> out;
  if (j.is_array())
    for (const auto& s : j)
      if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

// `iso` ("YYYY-MM-DDTHH:MM:SSZ", as schema::now_iso8601 writes it) moved `seconds` back; "" (no bound) when `iso` is
// not such a time.
std::string iso_seconds_before(const std::string& iso, std::int64_t seconds) {
  std::tm tm{};
  char z = 0;
  if (std::sscanf(iso.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &z) != 7 ||
      z != 'Z') {
    return {};
  }
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  const std::time_t t = timegm(&tm) - static_cast<std::time_t>(seconds);
  return t < 0 ? std::string{} : schema::iso8601_utc(t);
}

// Pages 1-10 of a GitHub listing asked 100 at a time (`fetch(page)`) until `pick(page's JSON)` finds an id (into
// `found`); the answer of the page that failed, if one did.
template <class Fetch, class Pick>
std::optional<GitHubResponse> first_in_pages(const Fetch& fetch, const Pick& pick, std::optional<std::int64_t>& found) {
  for (int page = 1; page <= 10 && !found; ++page) {
    auto r = fetch(page);
    if (!r.ok()) return r;
    const auto items = r.json();
    found = pick(items);
    if (!items.is_array() || items.size() < 100) break;
  }
  return std::nullopt;
}

std::string str_or(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string{};
}

}  // namespace

std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t backoff_ms(std::int64_t attempts, const RetryPolicy& policy) {
  const std::int64_t shift = std::clamp<std::int64_t>(attempts - 1, 0, 30);
  const std::int64_t base = std::max<std::int64_t>(policy.base_ms, 1);
  if (base > (policy.cap_ms >> shift)) return policy.cap_ms;  // would overflow the cap
  return std::min(policy.cap_ms, base << shift);
}

bool is_already_exists(const GitHubResponse& r) {
  if (r.status != 422) return false;
  auto j = r.json();
  if (!j.is_object() || !j.contains("errors") || !j["errors"].is_array()) return false;
  for (const auto& e : j["errors"])
    if (e.is_object() && e.value("code", "") == "already_exists") return true;
  return false;
}

Outcome decide(const GitHubResponse& r, std::int64_t attempts, std::int64_t now_ms, const RetryPolicy& policy) {
  if (r.ok()) return {Outcome::Kind::sent, 0, false, {}};
  // The client would not send it (a bad repository name or number): the same row fails the same way every time.
  if (r.refused) return {Outcome::Kind::failed, 0, false, describe(r)};
  Outcome out{Outcome::Kind::retry, backoff_ms(attempts, policy), false, describe(r)};
  const auto retry_after = header_int(r, "retry-after");
  const auto remaining = header_int(r, "x-ratelimit-remaining");
  const auto reset = header_int(r, "x-ratelimit-reset");
  if (r.status == 0 || r.status >= 500) {
    if (retry_after && r.status != 0) out.delay_ms = std::max<std::int64_t>(*retry_after * 1000, 0);
  } else if (r.status == 403 || r.status == 429) {
    if (retry_after) {
      out.delay_ms = std::max<std::int64_t>(*retry_after * 1000, 0);
      out.pause_all = true;
    } else if (remaining && *remaining == 0) {
      // Primary limit: nothing more until the window resets (epoch seconds); a reset in the past retries now.
      out.delay_ms = reset ? std::max<std::int64_t>(*reset * 1000 - now_ms, 0) : out.delay_ms;
      out.pause_all = true;
    } else if (r.status == 429 || is_secondary_limit(r)) {
      out.delay_ms = std::max(policy.secondary_min_ms, out.delay_ms);
      out.pause_all = true;
    } else {
      out.kind = Outcome::Kind::failed;  // forbidden: retrying will not help
      return out;
    }
  } else {
    out.kind = Outcome::Kind::failed;  // other 4xx: the request itself is wrong
    return out;
  }
  if (attempts >= policy.max_attempts) {
    out.kind = Outcome::Kind::failed;
    out.error = "gave up after " + std::to_string(attempts) + " attempts: " + out.error;
  }
  return out;
}

OutboxWorker::OutboxWorker(AppContext& app, WorkerOptions options)
    : app_(app), options_(std::move(options)), client_(options_.client) {
  client_.set_abort_flag(&stopping_);
}

OutboxWorker::~OutboxWorker() { stop(); }

void OutboxWorker::start() {
  if (thread_.joinable()) return;
  stopping_ = false;
  thread_ = std::thread([this] { loop(); });
}

void OutboxWorker::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool OutboxWorker::sleep_for(std::int64_t ms) {
  std::unique_lock lock(mutex_);
  if (ms > 0) wake_.wait_for(lock, std::chrono::milliseconds(ms), [this] { return stopping_.load(); });
  return !stopping_;
}

void OutboxWorker::loop() {
  while (!stopping_) {
    const auto now = unix_ms();
    if (now < paused_until_ms_) {
      if (!sleep_for(std::min(paused_until_ms_ - now, options_.poll_ms))) break;
      continue;
    }
    if (!run_once() && !sleep_for(options_.poll_ms)) break;
  }
}

GitHubResponse OutboxWorker::mutate(const std::function<GitHubResponse()>& call) {
  const auto wait = last_mutation_ms_ + options_.min_interval_ms - unix_ms();
  if (wait > 0 && !sleep_for(wait)) {
    GitHubResponse aborted;
    aborted.transport_error = "stopping";
    return aborted;
  }
  auto r = call();
  last_mutation_ms_ = unix_ms();
  return r;
}

bool OutboxWorker::run_once() {
  auto lease = app_.store();
  if (!lease) {
    log().error("outbox: {}", lease.error().message);
    return false;
  }
  auto& db = (*lease)->db();
  const std::int64_t claimed_at = unix_ms();
  // The lease keeps other replicas off on a shared PostgreSQL. On SQLite this process is the only sender (one
  // worker, one file): no lease, so an action a killed server was sending is due again at once after a restart.
  const std::int64_t claim_ms = db.dialect() == schema::Dialect::postgres ? options_.claim_lease_ms : 0;
  auto due = schema::claim_due(db, claimed_at, claimed_at + claim_ms);
  if (!due) {
    log().error("outbox: {}", due.error().message);
    return false;
  }
  if (!*due) return false;
  const schema::OutboxRow row = std::move(**due);
  const Outcome outcome = execute(row, db);
  // Interrupted by shutdown: the row is given back, pending as it was, and sent after restart (by any replica).
  if (stopping_ && outcome.kind != Outcome::Kind::sent) {
    if (auto r = schema::release_claim(db, row.id, claimed_at); !r) {
      log().error("outbox: {}", r.error().message);
    }
    return true;
  }
  const auto attempts = row.attempts + 1;
  auto written = in_transaction(db, [&]() -> Result<void> {
    switch (outcome.kind) {
      case Outcome::Kind::sent: return schema::mark_sent(db, row.id, attempts);
      case Outcome::Kind::retry:
        return schema::schedule_retry(db, row.id, attempts, unix_ms() + outcome.delay_ms, outcome.error);
      case Outcome::Kind::failed: return schema::mark_failed(db, row.id, attempts, outcome.error);
    }
    return {};
  });
  if (!written) log().error("outbox: {}", written.error().message);
  if (outcome.kind == Outcome::Kind::retry && outcome.pause_all) paused_until_ms_ = unix_ms() + outcome.delay_ms;
  if (outcome.kind == Outcome::Kind::failed) {
    log().warn("outbox: action {} ({} {}#{}) failed: {}", row.id, schema::to_string(row.kind), row.repo,
               row.issue_number, outcome.error);
  }
  return true;
}

namespace {

// The database could not be read: the action is tried again after a backoff.
Outcome db_trouble(const Error& e, std::int64_t attempts, const RetryPolicy& policy) {
  return Outcome{Outcome::Kind::retry, backoff_ms(attempts, policy), false, "database: " + e.message};
}

// A bookkeeping write after GitHub accepted the action: its failure is logged, the action stays sent.
void record(schema::Database& db, const std::function<Result<void>()>& write) {
  if (auto w = in_transaction(db, write); !w) log().error("outbox: {}", w.error().message);
}

}  // namespace

Outcome OutboxWorker::answer(const schema::OutboxRow& row, const GitHubResponse& response) const {
  return decide(response, row.attempts + 1, unix_ms(), options_.retry);
}

Outcome OutboxWorker::execute(const schema::OutboxRow& queued, schema::Database& db) {
  if (!is_github_repo(queued.repo)) {  // rows written before names were validated: never build a URL from them
    return Outcome{Outcome::Kind::failed, 0, false, "'" + queued.repo + "' is not a GitHub owner/name"};
  }
  if (options_.client.app) {  // a repository the App has lost is no longer acted on, whatever was queued for it
    auto installed = schema::app_repo(db, queued.repo);
    if (!installed) return db_trouble(installed.error(), queued.attempts + 1, options_.retry);
    if (*installed && (*installed)->removed) {
      return Outcome{Outcome::Kind::failed, 0, false, "the App was removed from " + queued.repo};
    }
  }
  schema::OutboxRow row = queued;
  // An action about a tracking issue queued before the issue existed (server/bot/tracking.hpp) names it by its
  // fingerprint: the number is known once the issue's creation (queued before it) was sent.
  if (const std::string fp = str_or(row.payload, "tracking_fingerprint");
      !fp.empty() && row.issue_number == 0 && row.kind != OutboxKind::upsert_tracking_issue &&
      row.kind != OutboxKind::create_label) {
    auto number = schema::tracking_issue(db, fp);
    if (!number) return db_trouble(number.error(), row.attempts + 1, options_.retry);
    if (!*number) {
      return Outcome{Outcome::Kind::retry, backoff_ms(row.attempts + 1, options_.retry), false,
                     "the tracking issue " + fp + " is not created yet"};
    }
    row.issue_number = **number;
    if (row.payload.contains("body") && row.payload["body"].is_string()) {
      std::string body = row.payload["body"].get<std::string>();
      const std::string placeholder = row.repo + "#{issue}";
      for (auto at = body.find(placeholder); at != std::string::npos; at = body.find(placeholder, at)) {
        body.replace(at, placeholder.size(), row.repo + "#" + std::to_string(row.issue_number));
      }
      row.payload["body"] = body;
    }
  }
  switch (row.kind) {
    case OutboxKind::create_label: {
      auto r = mutate(
          [&] { return client_.create_label(row.repo, str_or(row.payload, "name"), str_or(row.payload, "color")); });
      if (is_already_exists(r)) return {};
      return answer(row, r);
    }
    case OutboxKind::add_labels: return add_labels(row, db);
    case OutboxKind::upsert_comment: return upsert_comment(row, db);
    case OutboxKind::upsert_tracking_issue: return upsert_tracking_issue(row, db);
    case OutboxKind::commit_check: return commit_check(row);
  }
  return {Outcome::Kind::failed, 0, false, "unknown action kind"};
}

Outcome OutboxWorker::commit_check(const schema::OutboxRow& row) {
  const auto& p = row.payload;
  const std::string sha = str_or(p, "sha"), link = str_or(p, "details_url");
  if (options_.client.app) {  // only an App may write check runs
    json run{{"name", str_or(p, "name")},
             {"head_sha", sha},
             {"status", "completed"},
             {"conclusion", str_or(p, "conclusion")},
             {"output", {{"title", str_or(p, "title")}, {"summary", str_or(p, "summary")}}}};
    if (!link.empty()) run["details_url"] = link;
    auto r = mutate([&] { return client_.create_check_run(row.repo, run); });
    // 403 with requests left is "Resource not accessible by integration": the installation did not grant checks:
    // write. A commit status says the same with statuses: write.
    if (r.status != 403 || r.header("x-ratelimit-remaining") == "0") return answer(row, r);
  }
  const std::string conclusion = str_or(p, "conclusion");
  json status{{"state", conclusion == "failure" ? "failure" : "success"},
              {"context", str_or(p, "name")},
              {"description", str_or(p, "description")}};
  if (!link.empty()) status["target_url"] = link;
  return answer(row, mutate([&] { return client_.create_status(row.repo, sha, status); }));
}

Outcome OutboxWorker::add_labels(const schema::OutboxRow& row, schema::Database& db) {
  // A human may have removed one of these since it was queued: it is not applied again.
  auto suppressed = schema::suppressed_labels(db, row.repo, row.issue_number);
  if (!suppressed) return db_trouble(suppressed.error(), row.attempts + 1, options_.retry);
  std::set<std::string> removed;
  for (const auto& l : *suppressed) removed.insert(lower(l));
  std::vector<std::string> labels;
  for (auto& l : string_list(row.payload.value("labels", json::array())))
    if (!removed.count(lower(l))) labels.push_back(std::move(l));
  if (labels.empty()) return {};
  auto outcome = answer(row, mutate([&] { return client_.add_labels(row.repo, row.issue_number, labels); }));
  if (outcome.kind == Outcome::Kind::sent) {
    record(db, [&] { return schema::record_bot_labels(db, row.repo, row.issue_number, labels); });
  }
  return outcome;
}

std::optional<GitHubResponse> OutboxWorker::find_comment(const schema::OutboxRow& row, std::string_view marker,
                                                         std::optional<std::int64_t>& id) {
  return first_in_pages([&](int page) { return client_.list_comments(row.repo, row.issue_number, page); },
                        [&](const json& comments) { return find_marked_comment(comments, marker); }, id);
}

Outcome OutboxWorker::upsert_marked_comment(const schema::OutboxRow& row) {
  // A comment of its own (a tracking issue's update), found again by its first line, its marker: a re-send after a
  // crash edits it instead of posting a second one.
  const std::string body = str_or(row.payload, "body");
  const std::string marker = body.substr(0, body.find('\n'));
  std::optional<std::int64_t> id;
  if (auto failed = find_comment(row, marker, id)) return answer(row, *failed);
  if (id) return answer(row, mutate([&] { return client_.update_comment(row.repo, *id, body); }));
  return answer(row, mutate([&] { return client_.create_comment(row.repo, row.issue_number, body); }));
}

Outcome OutboxWorker::upsert_comment(const schema::OutboxRow& row, schema::Database& db) {
  if (row.payload.contains("marker")) return upsert_marked_comment(row);
  const std::string body = str_or(row.payload, "body");
  auto known = schema::comment_id(db, row.repo, row.issue_number);
  if (!known) return db_trouble(known.error(), row.attempts + 1, options_.retry);
  std::optional<std::int64_t> id = *known;
  if (!id) {
    // Our comment may exist without its id stored: a crash between posting and recording it.
    if (auto failed = find_comment(row, analyzers::labeler::kCommentMarker, id)) return answer(row, *failed);
  }
  if (id) {
    auto r = mutate([&] { return client_.update_comment(row.repo, *id, body); });
    if (r.status != 404) {  // 404: someone deleted it; post a new one
      auto outcome = answer(row, r);
      if (outcome.kind == Outcome::Kind::sent && *known != id) {
        record(db, [&] { return schema::set_comment_id(db, row.repo, row.issue_number, *id); });
      }
      return outcome;
    }
  }
  auto r = mutate([&] { return client_.create_comment(row.repo, row.issue_number, body); });
  auto outcome = answer(row, r);
  if (outcome.kind == Outcome::Kind::sent) {
    auto j = r.json();
    if (j.is_object() && j.contains("id") && j["id"].is_number_integer()) {
      const auto new_id = j["id"].get<std::int64_t>();
      record(db, [&] { return schema::set_comment_id(db, row.repo, row.issue_number, new_id); });
    }
  }
  return outcome;
}

std::optional<GitHubResponse> OutboxWorker::find_tracking_issue(const schema::OutboxRow& row, std::string_view marker,
                                                                std::optional<std::int64_t>& number) {
  // An issue this row opened was updated after the row was queued; an hour earlier allows for GitHub's clock. Most
  // recently updated first: the attempt that opened it was the last one, so it is on the first page unless more than
  // 1,000 issues were updated after it (first_in_pages reads 10 pages).
  const std::string since = iso_seconds_before(row.created_at, 3600);
  return first_in_pages(
      [&](int page) { return client_.list_issues(row.repo, since, page, 100, GitHubClient::Order::most_recent_first); },
      [&](const json& issues) { return find_marked_issue(issues, marker, app_.settings().github.bot_login); }, number);
}

Outcome OutboxWorker::upsert_tracking_issue(const schema::OutboxRow& row, schema::Database& db) {
  const std::string fingerprint = str_or(row.payload, "fingerprint");
  json issue{{"title", str_or(row.payload, "title")}, {"body", str_or(row.payload, "body")}};
  if (const std::string state = str_or(row.payload, "state"); state == "open" || state == "closed") {
    issue["state"] = state;
  }
  auto known = schema::tracking_issue(db, fingerprint);
  if (!known) return db_trouble(known.error(), row.attempts + 1, options_.retry);
  // Two rows for one fingerprint taken by two replicas at once would both find no issue and both open one: the
  // search and the opening are one replica's at a time (a lock its session holds, so a replica that dies frees it).
  std::optional<schema::TaskLock> opening;
  if (!*known) {
    auto turn = schema::TaskLock::try_take(db, "tracking-issue:" + fingerprint);
    if (!turn) return db_trouble(turn.error(), row.attempts + 1, options_.retry);
    if (!turn->held()) {
      return Outcome{Outcome::Kind::retry, backoff_ms(row.attempts + 1, options_.retry), false,
                     "another replica is opening the tracking issue " + fingerprint};
    }
    opening.emplace(std::move(*turn));
    known = schema::tracking_issue(db, fingerprint);  // it may have been opened while this row waited
    if (!known) return db_trouble(known.error(), row.attempts + 1, options_.retry);
  }
  std::optional<std::int64_t> number = *known;
  if (!number) {
    // POST /issues has no idempotency key: an attempt killed between GitHub's 201 and the commit below left the issue
    // on GitHub only. It is found again by the marker its body ends with (tracking_marker) and adopted.
    if (auto failed = find_tracking_issue(row, tracking_marker(fingerprint), number)) return answer(row, *failed);
  }
  if (number) {
    auto r = mutate([&] { return client_.update_issue(row.repo, *number, issue); });
    if (r.status != 404) {  // 404: someone deleted it; open a new one
      auto outcome = answer(row, r);
      if (outcome.kind == Outcome::Kind::sent && !*known) {
        record(db, [&] { return schema::set_tracking_issue(db, fingerprint, row.repo, *number); });
      }
      return outcome;
    }
  }
  if (row.payload.contains("labels")) issue["labels"] = row.payload["labels"];
  auto r = mutate([&] { return client_.create_issue(row.repo, issue); });
  auto outcome = answer(row, r);
  if (outcome.kind == Outcome::Kind::sent) {
    auto j = r.json();
    if (j.is_object() && j.contains("number") && j["number"].is_number_integer()) {
      const auto opened = j["number"].get<std::int64_t>();
      record(db, [&] { return schema::set_tracking_issue(db, fingerprint, row.repo, opened); });
    }
  }
  return outcome;
}

}  // namespace perftriage::server
